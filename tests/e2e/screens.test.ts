import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { E2E_ADMIN_PASSWORD } from "./bindings";
import { PHONE, WAIT, patient, pageWidth, screenshotsDir } from "./browser-page";
import { launchBrowser, watchErrors } from "./chromium";
import { resetStandin } from "./standin";

// How the pages look: every visitor page and every console page is photographed on a desktop and on
// a 390 px phone (tests/artifacts/screenshots/, kept by CI as artifacts), and each console page is
// measured: nothing may be wider than the phone's screen. Also: every invalid input is marked alike.

const SHOTS = screenshotsDir();
const VIEWPORTS = { desktop: { width: 1280, height: 800 }, phone: PHONE } as const;
type Viewport = keyof typeof VIEWPORTS;

let browser: Browser;
const contexts: BrowserContext[] = [];
let reference = "";

beforeAll(async () => {
  browser = await launchBrowser(inject("chromiumPath"));
  await resetStandin();
});
afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
});

async function open(viewport: Viewport): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({
    viewport: VIEWPORTS[viewport],
    deviceScaleFactor: 1,
    isMobile: viewport === "phone",
    hasTouch: viewport === "phone",
  });
  contexts.push(context);
  const page = patient(await context.newPage());
  return { page, errors: watchErrors(page) };
}

async function shoot(page: Page, name: string, viewport: Viewport) {
  await page.screenshot({ path: new URL(`${name}-${viewport}.png`, SHOTS).pathname, fullPage: true });
}

async function captchaReady(page: Page) {
  await page.getByText("Check complete — you can send the form.").waitFor(WAIT);
}

describe.each(["desktop", "phone"] as const)("visitor pages on a %s", (viewport) => {
  it("photographs the landing page, both forms, a refused post and the thank-you page", async () => {
    const { page, errors } = await open(viewport);
    await page.goto(`${inject("baseUrl")}/`);
    await page.getByRole("heading", { level: 1 }).waitFor(WAIT);
    // The site's look from BRAND_COLOR and SITE_LOGO_URL (tests/e2e/bindings.ts), allowed by the CSP.
    expect(await page.locator("header.site").evaluate((el) => getComputedStyle(el).backgroundColor)).toBe("rgb(15, 118, 110)");
    expect(await page.locator("header.site img.site-logo").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(
      true,
    );
    await shoot(page, "landing", viewport);

    await page.goto(`${inject("baseUrl")}/f/newsletter`);
    await captchaReady(page);
    await shoot(page, "newsletter", viewport);

    await page.goto(`${inject("baseUrl")}/f/contact`);
    await captchaReady(page);
    await shoot(page, "contact", viewport);
    expect(await page.locator("#submit-hint").textContent()).toBe("Ready to send.");

    await page.getByLabel("E-mail address").fill("not an address");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("heading", { name: "There is a problem" }).waitFor(WAIT);
    await captchaReady(page);
    // The same mark on every invalid control, whatever its kind (a specificity clash once left the
    // inputs grey and only the textarea red).
    const marks = await page.locator('[aria-invalid="true"]').evaluateAll((controls) =>
      controls.map((c) => {
        const style = getComputedStyle(c);
        return `${style.borderTopColor} ${style.borderTopWidth} ${style.backgroundColor}`;
      }),
    );
    expect(marks).toHaveLength(3);
    expect(new Set(marks).size, marks.join("\n")).toBe(1);
    await shoot(page, "contact-errors", viewport);

    await page.getByLabel("Your name").fill("Ada Lovelace");
    await page.getByLabel("E-mail address").fill("ada@example.org");
    await page.getByLabel("Message").fill("The pages look finished; this message proves the form still sends.");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("heading", { name: "Received" }).waitFor(WAIT);
    await page.getByRole("heading", { name: "What happens next" }).waitFor(WAIT);
    reference = (await page.locator(".reference").textContent()) ?? reference;
    await shoot(page, "thanks", viewport);
    if (viewport === "phone") expect(await pageWidth(page)).toBeLessThanOrEqual(390);
    // The refused post's 422 is the one failed request Chromium reports; nothing else may fail.
    expect(
      errors.filter((e) => !e.includes("status of 422")),
      errors.join("\n"),
    ).toEqual([]);
  });
});

describe.each(["phone", "desktop"] as const)("the operator console on a %s", (viewport) => {
  it("fits every page in the screen's width and photographs it", async () => {
    expect(reference, "the visitor test sent a submission first").toMatch(/^[0-9a-f-]{36}$/);
    const { page } = await open(viewport);
    const widths: Record<string, number> = {};
    await page.goto(`${inject("baseUrl")}/admin/login`);
    await page.getByRole("heading", { name: "Operator sign-in" }).waitFor(WAIT);
    widths.login = await pageWidth(page);
    await shoot(page, "admin-login", viewport);
    await page.getByLabel("Password").fill(E2E_ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Dashboard" }).waitFor(WAIT);
    await page.getByText("Signed in as admin").waitFor(WAIT);

    const pages: Array<[string, string, string]> = [
      ["dashboard", "/admin", "Dashboard"],
      ["submissions", "/admin/submissions", "Submissions"],
      ["submissions-empty", "/admin/submissions?q=nothing-matches-this", "Submissions"],
      ["submission", `/admin/submissions/${reference}`, "Submission"],
      ["erase", "/admin/erase", "Erase by e-mail"],
      ["audit", "/admin/audit", "Audit log"],
      ["forms", "/admin/forms", "Forms"],
      ["form-code", "/admin/forms/contact", "Contact us"],
      ["destinations", "/admin/forms/contact/destinations", "Destinations"],
      ["tokens", "/admin/tokens", "API tokens"],
    ];
    for (const [name, path, heading] of pages) {
      await page.goto(`${inject("baseUrl")}${path}`);
      await page.getByRole("heading", { name: heading, exact: true, level: 1 }).waitFor(WAIT);
      widths[name] = await pageWidth(page);
      await shoot(page, `admin-${name}`, viewport);
    }
    if (viewport === "phone") {
      const tooWide = Object.entries(widths).filter(([, width]) => width > 390);
      expect(tooWide, JSON.stringify(widths)).toEqual([]);
    }
  });
});

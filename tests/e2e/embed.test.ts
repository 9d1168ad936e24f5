import type { Browser, Page } from "playwright-core";
import { describe, expect, it, inject } from "vitest";
import { contactForm } from "~/forms/contact";
import { E2E_ADMIN_PASSWORD } from "./bindings";
import { WAIT, axeViolations, useBrowserPage } from "./browser-page";
import { standinCalls } from "./standin";

// Each embed the console hands out, pasted into a static page on another site (embed-host.test, not
// Gatepost's 127.0.0.1): the one-line script (a frame of the form's page, sized to its content) and the
// form as HTML. The browser context is Chromium's off-the-record one, which blocks third-party storage
// as Chrome Incognito does: the framed page is third-party there, and each framed test shows the block
// is real (ADR 108). On the allowed site a visitor fills it, passes the captcha and sends it, sees the
// form's own success message in place, and the delivery reaches the sink; a site not listed can neither
// frame the form nor post to it. The contact form's allowed origins come from FORM_ALLOWED_ORIGINS
// (tests/e2e/bindings.ts), which wins; the captcha's hostname for the HTML form is set on the Embed page.

let page: Page;
let errors: string[];
let browser: Browser;
useBrowserPage((p, e, b) => {
  [page, errors, browser] = [p, e, b];
});

const VISITOR = { name: "Lin Embedded", email: "lin@example.org" };
let copied: { script: string; html: string } | null = null;

interface SinkState {
  unique: Array<{ payload: { form: string; submission: { fields: Record<string, unknown> } } }>;
}

async function delivered(message: string) {
  const state: SinkState = await (await fetch(`${inject("sinkControl")}/state`)).json();
  return state.unique.find((u) => u.payload.form === "contact" && u.payload.submission.fields.message === message);
}

/** In the browser: true when this document may not use storage (localStorage is never shimmed: ADR 108). */
function storageDenied(): boolean {
  try {
    window.localStorage.getItem("gatepost-probe");
    return false;
  } catch (error) {
    return error instanceof DOMException && error.name === "SecurityError";
  }
}

/** A customer's static page on `site` holding `body`. */
async function openStaticPage(site: string, body: string) {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Customer site</title></head>
<body><h1>Customer site</h1>${body}</body></html>`;
  await page.goto(`${site}/raw.html?html=${Buffer.from(html).toString("base64url")}`);
  await page.getByRole("heading", { name: "Customer site" }).waitFor(WAIT);
}

/** What the console's Embed page hands out, copied as an owner would (once per file). */
async function snippets(): Promise<{ script: string; html: string }> {
  if (copied) return copied;
  const context = await browser.newContext();
  try {
    const owner = await context.newPage();
    await owner.goto(`${inject("baseUrl")}/admin/login?next=${encodeURIComponent("/admin/forms/contact/embed")}`);
    await owner.getByLabel("Password").fill(E2E_ADMIN_PASSWORD);
    await owner.getByRole("button", { name: "Sign in" }).click();
    await owner.getByRole("heading", { name: "Embed", level: 1 }).waitFor(WAIT);
    expect(await axeViolations(owner)).toEqual([]);
    // The HTML form's captcha is solved on the customer's site: its hostname is listed, as the page asks.
    await owner.getByLabel("Hostnames the captcha may be solved on").fill(new URL(inject("allowedCrossSite")).hostname);
    await owner.getByRole("button", { name: "Save the sites" }).click();
    await owner.getByText("Saved: the sites listed may embed this form now.").waitFor(WAIT);
    copied = {
      script: await owner.getByRole("textbox", { name: "One line: a frame of the form" }).inputValue(),
      html: await owner.getByRole("textbox", { name: "The form as HTML" }).inputValue(),
    };
    return copied;
  } finally {
    await context.close();
  }
}

describe("the one-line embed", () => {
  it("frames the form on an allowed site, sized to it, and shows its success message in place", async () => {
    await openStaticPage(inject("allowedCrossSite"), (await snippets()).script);
    const frame = page.frameLocator(`iframe[title="${contactForm.title}"]`);
    await frame.getByText("Check complete — you can send the form.").waitFor(WAIT);
    // The framed page is third-party here, and the browser denies it storage (else this proves nothing).
    expect(await frame.locator("body").evaluate(storageDenied)).toBe(true);
    // The frame takes the page's height, told by the page itself (640 px before).
    await expect.poll(() => page.locator("iframe").evaluate((el: HTMLIFrameElement) => el.style.height), WAIT).not.toBe("640px");
    const message = `Sent through the framed form ${Date.now()}.`;
    await frame.getByLabel("Your name").fill(VISITOR.name);
    await frame.getByLabel("E-mail address").fill(VISITOR.email);
    await frame.getByLabel("Message").fill(message);
    await frame.getByRole("button", { name: "Send" }).click();
    await frame.getByRole("heading", { name: "Received" }).waitFor(WAIT);
    await frame.getByText(contactForm.successMessage).waitFor(WAIT);
    expect(page.url()).toContain(inject("allowedCrossSite"));
    await expect.poll(() => delivered(message), WAIT).toBeDefined();
    expect(errors).toEqual([]);
  });

  it("cannot frame the form on a site not listed", async () => {
    await openStaticPage(inject("refusedCrossSite"), (await snippets()).script);
    // Chromium refuses the frame itself (frame-ancestors) and says so; the form never shows.
    await expect.poll(() => errors.some((e) => e.includes("frame-ancestors")), WAIT).toBe(true);
    expect(await page.frameLocator("iframe").getByRole("button", { name: "Send" }).count()).toBe(0);
    expect(await standinCalls()).toHaveLength(0);
  });
});

describe("the form as HTML", () => {
  it("posts from an allowed site with the captcha and shows the form's success message in place", async () => {
    await openStaticPage(inject("allowedCrossSite"), (await snippets()).html);
    const message = `Sent through the pasted HTML ${Date.now()}.`;
    await page.getByLabel("Your name").fill(VISITOR.name);
    await page.getByLabel("E-mail address").fill(VISITOR.email);
    await page.getByLabel("Message").fill(message);
    await expect.poll(() => page.getByRole("button", { name: "Send" }).isEnabled(), WAIT).toBe(true);
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("status").getByText(contactForm.successMessage).waitFor(WAIT);
    expect(page.url()).toContain(inject("allowedCrossSite"));
    await expect.poll(() => delivered(message), WAIT).toBeDefined();
    expect(errors).toEqual([]);
  });

  it("shows what to fix in place, from the form's own messages", async () => {
    await openStaticPage(inject("allowedCrossSite"), (await snippets()).html);
    await page.getByLabel("Your name").fill(VISITOR.name);
    // The browser's own checks pass this address (the HTML carries type, required and lengths); the server's do not.
    await page.getByLabel("E-mail address").fill("lin@localhost");
    await page.getByLabel("Message").fill("Checked by the server.");
    await expect.poll(() => page.getByRole("button", { name: "Send" }).isEnabled(), WAIT).toBe(true);
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("alert").getByText("E-mail address must be a valid e-mail address, like name@example.com.").waitFor(WAIT);
    expect(await page.getByLabel("E-mail address").getAttribute("aria-invalid")).toBe("true");
    // Chromium logs the refused post's 422 itself; nothing else may have failed.
    expect(errors.filter((e) => !e.includes("status of 422"))).toEqual([]);
  });

  it("without its script, still posts and lands on the thank-you page", async () => {
    const plain = (await snippets()).html.replace(/<script>[\s\S]*?<\/script>/, "");
    await openStaticPage(inject("allowedCrossSite"), plain);
    const message = `Sent through the HTML without its script ${Date.now()}.`;
    await page.getByLabel("Your name").fill(VISITOR.name);
    await page.getByLabel("E-mail address").fill(VISITOR.email);
    await page.getByLabel("Message").fill(message);
    await expect.poll(() => page.locator('input[name="cf-turnstile-response"]').inputValue(), WAIT).not.toBe("");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("heading", { name: "Received" }).waitFor(WAIT);
    await page.getByText(contactForm.successMessage).waitFor(WAIT);
    await expect.poll(() => delivered(message), WAIT).toBeDefined();
  });

  it("cannot post from a site not listed", async () => {
    await openStaticPage(inject("refusedCrossSite"), (await snippets()).html);
    await page.getByLabel("Your name").fill(VISITOR.name);
    await page.getByLabel("E-mail address").fill(VISITOR.email);
    await page.getByLabel("Message").fill("Sent from a site that is not listed.");
    await expect.poll(() => page.getByRole("button", { name: "Send" }).isEnabled(), WAIT).toBe(true);
    await page.getByRole("button", { name: "Send" }).click();
    // fetch() is refused by CORS; the form then posts itself and gets the 403 page.
    await page.getByText("This form does not accept submissions from that site.").waitFor(WAIT);
    expect(await standinCalls()).toHaveLength(0);
  });
});

import { mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { beforeAll, describe, expect, it, inject } from "vitest";
import { WAIT, patient, useBrowserPage } from "./browser-page";
import { setStandinMode, standinCalls } from "./standin";

const ARTIFACTS = new URL("../artifacts/", import.meta.url);

let browser: Browser;
let page: Page;
let errors: string[];
useBrowserPage((p, e, b) => {
  [page, errors, browser] = [p, e, b];
});
beforeAll(() => {
  mkdirSync(ARTIFACTS, { recursive: true });
});

async function openContact() {
  await page.goto(`${inject("baseUrl")}/f/contact`);
  await page.getByRole("heading", { name: "Contact us" }).waitFor(WAIT);
}

async function fill(values: { name: string; email: string; message: string }) {
  await page.getByLabel("Your name").fill(values.name);
  await page.getByLabel("E-mail address").fill(values.email);
  await page.getByLabel("Message").fill(values.message);
}

async function waitForCaptcha() {
  await page.getByText("Check complete — you can send the form.").waitFor(WAIT);
  await expect.poll(() => page.getByRole("button", { name: "Send" }).isEnabled(), WAIT).toBe(true);
}

const VALID = { name: "Grace Hopper", email: "grace@example.org", message: "Found a moth in relay 70." };

describe("contact form in Chromium", () => {
  it("submits to the thank-you view with a reference (and keeps a screenshot)", async () => {
    await openContact();
    await fill(VALID);
    await waitForCaptcha();
    await page.screenshot({ path: new URL("contact-form.png", ARTIFACTS).pathname, fullPage: true });
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("heading", { name: "Received" }).waitFor(WAIT);
    expect(page.url()).toMatch(/\/f\/contact\/thanks\/[0-9a-f-]{36}$/);
    const reference = await page.locator(".reference").textContent();
    expect(page.url().endsWith(reference ?? "missing")).toBe(true);
    const calls = await standinCalls();
    expect(calls).toHaveLength(1);
    expect(errors).toEqual([]);
  });

  it("shows a field error next to the field, focuses the summary and keeps the values", async () => {
    await openContact();
    await fill({ ...VALID, email: "grace-at-example" });
    await waitForCaptcha();
    await page.getByRole("button", { name: "Send" }).click();
    const summary = page.getByRole("alert");
    await summary.getByText("There is a problem").waitFor(WAIT);
    await expect.poll(() => page.evaluate(() => document.activeElement?.className), WAIT).toBe("summary");
    const email = page.getByLabel("E-mail address");
    expect(await email.getAttribute("aria-invalid")).toBe("true");
    expect(await email.inputValue()).toBe("grace-at-example");
    expect(await page.getByLabel("Message").inputValue()).toBe(VALID.message);
    expect(await page.locator("#field-email-error").textContent()).toContain("valid e-mail address");
    // The token was not spent on an invalid form: the provider was never asked.
    expect(await standinCalls()).toHaveLength(0);
  });

  it("resets the widget after a captcha failure and succeeds on the retry", async () => {
    await openContact();
    await fill(VALID);
    await waitForCaptcha();
    const firstToken = await page.locator('input[name="cf-turnstile-response"]').inputValue();
    await setStandinMode("reject", { times: 1 });
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByText("The captcha check failed or expired — please try again.").waitFor(WAIT);
    await waitForCaptcha();
    const secondToken = await page.locator('input[name="cf-turnstile-response"]').inputValue();
    expect(secondToken).not.toBe(firstToken);
    expect(await page.getByLabel("Message").inputValue()).toBe(VALID.message);
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("heading", { name: "Received" }).waitFor(WAIT);
    expect((await standinCalls()).map((c) => c.response)).toEqual([firstToken, secondToken]);
  });

  it("says the captcha could not load when its script is blocked, and recovers on retry", async () => {
    const scriptPattern = `${inject("standinOrigin")}/turnstile/v0/api.js**`;
    await page.route(scriptPattern, (route) => route.abort("blockedbyclient"));
    await openContact();
    await page.getByText("The captcha could not load").waitFor(WAIT);
    expect(await page.getByRole("button", { name: "Send" }).isDisabled()).toBe(true);
    await page.unroute(scriptPattern);
    await page.getByRole("button", { name: "Retry the captcha" }).click();
    await waitForCaptcha();
    // Chromium reports the blocked script load itself; nothing else may have failed.
    expect(errors.filter((e) => !e.includes("ERR_BLOCKED_BY_CLIENT"))).toEqual([]);
  });

  it("gives up on a script that loads but never provides the API, after 10 s", async () => {
    const scriptPattern = `${inject("standinOrigin")}/turnstile/v0/api.js**`;
    await page.route(scriptPattern, (route) =>
      route.fulfill({ status: 200, contentType: "application/javascript", body: "/* a captive portal's page */" }),
    );
    // The page's clock stands still from the start, so the 10 s wait is counted on it, not on the wall.
    await page.clock.install();
    await page.clock.pauseAt(Date.now() + 1_000);
    const asked = page.waitForRequest((request) => request.url().includes("/turnstile/v0/api.js"));
    await openContact();
    await asked;
    const failed = page.getByText("The captcha could not load");
    await page.clock.runFor(8_000);
    expect(await failed.isVisible()).toBe(false);
    await page.clock.runFor(2_100);
    await failed.waitFor(WAIT);
    expect(await page.getByRole("button", { name: "Retry the captcha" }).isVisible()).toBe(true);
  });

  it("sends the form once even when Send is clicked twice", async () => {
    await openContact();
    await fill(VALID);
    await waitForCaptcha();
    await setStandinMode("slow", { delayMs: 1_500, times: 1 });
    const send = page.getByRole("button", { name: "Send" });
    await send.click();
    await expect.poll(() => send.isDisabled(), WAIT).toBe(true);
    await send.click({ force: true, timeout: 2_000 }).catch(() => {});
    await page.getByRole("heading", { name: "Received" }).waitFor(WAIT);
    expect(await standinCalls()).toHaveLength(1);
  });
});

describe("contact form without JavaScript", () => {
  it("explains that the captcha needs JavaScript and refuses a post without a token", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const noJs = patient(await context.newPage());
    try {
      await noJs.goto(`${inject("baseUrl")}/f/contact`);
      // Playwright's no-JS mode still parses <noscript> as raw text, so check the markup a no-JS browser renders.
      const noscript = await noJs.evaluate(() => document.querySelector(".captcha noscript")?.textContent ?? "");
      expect(noscript).toContain("The captcha needs JavaScript");
      // No line claims a check that never runs without JavaScript.
      await noJs.getByRole("button", { name: "Send" }).waitFor(WAIT);
      for (const claim of ["Checking that you are human…", "The form can be sent once the captcha check is complete."]) {
        expect(await noJs.getByText(claim).count(), claim).toBe(1);
        expect(await noJs.getByText(claim).isVisible(), claim).toBe(false);
      }
      await noJs.getByLabel("Your name").fill(VALID.name);
      await noJs.getByLabel("E-mail address").fill(VALID.email);
      await noJs.getByLabel("Message").fill(VALID.message);
      await noJs.getByRole("button", { name: "Send" }).click();
      await noJs.getByText("Please complete the captcha check before sending.").waitFor(WAIT);
      expect(await noJs.getByLabel("Message").inputValue()).toBe(VALID.message);
      expect(await standinCalls()).toHaveLength(0);
    } finally {
      await context.close();
    }
  });
});

describe("captcha widget states", () => {
  it("shows an error with a retry button, and retry brings the widget back", async () => {
    await page.addInitScript(() => {
      (window as unknown as { __TURNSTILE_STANDIN__: object }).__TURNSTILE_STANDIN__ = { fail: true };
    });
    await openContact();
    await page.getByText("The captcha check ran into a problem.").waitFor(WAIT);
    expect(await page.getByRole("button", { name: "Send" }).isDisabled()).toBe(true);
    await page.evaluate(() => {
      (window as unknown as { __TURNSTILE_STANDIN__: object }).__TURNSTILE_STANDIN__ = {};
    });
    await page.getByRole("button", { name: "Retry the captcha" }).click();
    await waitForCaptcha();
  });

  it("shows the expired state while the token refreshes itself, then allows sending", async () => {
    await page.addInitScript(() => {
      (window as unknown as { __TURNSTILE_STANDIN__: object }).__TURNSTILE_STANDIN__ = { ttlMs: 1_500 };
    });
    await openContact();
    await fill(VALID);
    await waitForCaptcha();
    const first = await page.locator('input[name="cf-turnstile-response"]').inputValue();
    await page.evaluate(() => {
      const seen: string[] = ((window as unknown as { __seen: string[] }).__seen = []);
      const el = document.querySelector("[data-captcha-status]")!;
      new MutationObserver(() => seen.push(el.getAttribute("data-captcha-status") ?? "")).observe(el, { attributes: true });
    });
    // The stand-in expires the token and, with refresh-expired "auto", issues a new one by itself.
    await expect.poll(() => page.locator('input[name="cf-turnstile-response"]').inputValue(), WAIT).not.toBe(first);
    await page.evaluate(() => {
      (window as unknown as { __TURNSTILE_STANDIN__: object }).__TURNSTILE_STANDIN__ = {};
    });
    await waitForCaptcha();
    expect(await page.evaluate(() => (window as unknown as { __seen: string[] }).__seen)).toContain("expired");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("heading", { name: "Received" }).waitFor(WAIT);
  });
});

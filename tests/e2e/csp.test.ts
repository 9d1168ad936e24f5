import type { Browser, Page } from "playwright-core";
import { describe, expect, it, inject } from "vitest";
import { watchErrors } from "./chromium";
import { WAIT, patient, useBrowserPage } from "./browser-page";

// Pages run under the real CSP header with nothing blocked: no securitypolicyviolation event, no CSP
// console message, and the form completes its captcha and submits. Pages without a form never
// request the Turnstile script.

let browser: Browser;
let page: Page;
let errors: string[];
let scriptRequests: string[];

useBrowserPage(async (p, e, b) => {
  [page, errors, browser] = [p, e, b];
  scriptRequests = [];
  page.on("request", (request) => {
    if (request.resourceType() === "script") scriptRequests.push(request.url());
  });
  // Registered before any page script runs, so even a violation during parsing is caught.
  await page.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener("securitypolicyviolation", (e) => {
      w.__csp.push(`${e.violatedDirective} blocked ${e.blockedURI} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
});

async function violations(): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __csp: string[] }).__csp);
}

function cspConsoleErrors(): string[] {
  return errors.filter((e) => /Content Security Policy|Refused to/i.test(e));
}

const turnstileRequests = () => scriptRequests.filter((url) => url.includes("/turnstile/v0/api.js"));

describe("pages under the Content-Security-Policy", () => {
  it("the landing page hydrates with no violation and loads no Turnstile script", async () => {
    const response = await page.goto(`${inject("baseUrl")}/`);
    expect(response?.headers()["content-security-policy"]).toContain("'strict-dynamic'");
    await page.getByRole("heading", { name: "Gatepost", level: 1 }).waitFor(WAIT);
    // Hydration proof: a client-side navigation only works once React and Remix are running.
    await page.getByRole("link", { name: "Contact us" }).click();
    await page.getByText("Check complete — you can send the form.").waitFor(WAIT);
    expect(await violations()).toEqual([]);
    expect(cspConsoleErrors()).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("serves the hashed assets the pages load as immutable, straight from the asset server", async () => {
    await page.goto(`${inject("baseUrl")}/`);
    await page.getByRole("heading", { name: "Gatepost", level: 1 }).waitFor(WAIT);
    const assets = scriptRequests.filter((url) => new URL(url).pathname.startsWith("/assets/"));
    expect(assets.length).toBeGreaterThan(3);
    for (const url of assets) {
      const response = await fetch(url);
      // Read every body: an unread stream keeps pages dev's connection (and asset server) busy.
      await response.arrayBuffer();
      expect([url, response.status, response.headers.get("cache-control")]).toEqual([url, 200, "public, max-age=31536000, immutable"]);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });

  it("the contact form loads the captcha, submits and shows the thank-you view with no violation", async () => {
    await page.goto(`${inject("baseUrl")}/f/contact`);
    await page.getByLabel("Your name").fill("Grace Hopper");
    await page.getByLabel("E-mail address").fill("grace@example.org");
    await page.getByLabel("Message").fill("Testing the content security policy.");
    await page.getByText("Check complete — you can send the form.").waitFor(WAIT);
    expect(turnstileRequests()).toHaveLength(1);
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("heading", { name: "Received" }).waitFor(WAIT);
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("the thank-you view, loaded directly, runs with no violation and no Turnstile script", async () => {
    await page.goto(`${inject("baseUrl")}/f/contact`);
    await page.getByLabel("Your name").fill("Grace Hopper");
    await page.getByLabel("E-mail address").fill("grace@example.org");
    await page.getByLabel("Message").fill("A second message.");
    await page.getByText("Check complete — you can send the form.").waitFor(WAIT);
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("heading", { name: "Received" }).waitFor(WAIT);
    const thanks = page.url();

    const fresh = patient(await browser.newPage());
    const freshScripts: string[] = [];
    fresh.on("request", (r) => r.resourceType() === "script" && freshScripts.push(r.url()));
    const freshErrors = watchErrors(fresh);
    try {
      await fresh.goto(thanks);
      await fresh.getByRole("heading", { name: "Received" }).waitFor(WAIT);
      await fresh.waitForLoadState("networkidle");
      expect(freshScripts.length).toBeGreaterThan(0);
      expect(freshScripts.filter((url) => url.includes("turnstile"))).toEqual([]);
      expect(freshErrors).toEqual([]);
    } finally {
      await fresh.close();
    }
  });

  it("the operator sign-in page runs with no violation and loads no Turnstile script", async () => {
    const response = await page.goto(`${inject("baseUrl")}/admin/login`);
    expect(response?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
    await page.getByRole("heading", { name: "Operator sign-in" }).waitFor(WAIT);
    await page.waitForLoadState("networkidle");
    expect(scriptRequests.length).toBeGreaterThan(0);
    expect(turnstileRequests()).toEqual([]);
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("a 404 page and a form with field errors run with no violation", async () => {
    const notFound = await page.goto(`${inject("baseUrl")}/no/such/page`);
    expect(notFound?.status()).toBe(404);
    expect(notFound?.headers()["content-security-policy"]).toContain("default-src 'self'");
    await page.getByRole("heading", { name: "Page not found" }).waitFor(WAIT);
    await page.waitForLoadState("networkidle");
    expect(turnstileRequests()).toEqual([]);

    await page.goto(`${inject("baseUrl")}/f/contact`);
    await page.getByLabel("E-mail address").fill("not-an-email");
    await page.getByText("Check complete — you can send the form.").waitFor(WAIT);
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("alert").getByText("There is a problem").waitFor(WAIT);
    expect(await violations()).toEqual([]);
    // Chromium reports the 404 and the 422 themselves as failed resources; nothing else may fail.
    expect(errors.filter((e) => !/status of (404|422)/.test(e))).toEqual([]);
    expect(cspConsoleErrors()).toEqual([]);
  });

  it("would report a violation: an injected inline script without the nonce is blocked and reported", async () => {
    // Simulates an HTML injection: the real response and CSP header, plus a script tag with no nonce.
    await page.route(`${inject("baseUrl")}/`, async (route) => {
      const response = await route.fetch();
      const html = (await response.text()).replace("</h1>", "</h1><script>window.__ran = true</script>");
      await route.fulfill({ response, body: html });
    });
    await page.goto(`${inject("baseUrl")}/`);
    await page.getByRole("heading", { name: "Gatepost", level: 1 }).waitFor(WAIT);
    await expect.poll(() => violations(), WAIT).toEqual([expect.stringContaining("script-src")]);
    expect(cspConsoleErrors()).not.toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { __ran?: boolean }).__ran)).toBeUndefined();
  });
});

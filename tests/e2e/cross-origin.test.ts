import type { Page } from "playwright-core";
import { describe, expect, it, inject } from "vitest";
import { WAIT, useBrowserPage } from "./browser-page";
import { standinCalls } from "./standin";

// A static site on a second loopback origin posts to Gatepost's public API, with fetch and with a
// plain HTML form; a third origin, not on the form's list, is refused both ways (tests/e2e/bindings.ts).

let page: Page;
let errors: string[];
useBrowserPage((p, e) => {
  [page, errors] = [p, e];
});

async function openSite(site: string, kind: "plain" | "fetch", values = { email: "lin@example.org" }) {
  const query = new URLSearchParams({ gatepost: inject("baseUrl"), script: `${inject("standinOrigin")}/turnstile/v0/api.js` });
  await page.goto(`${site}/${kind}.html?${query}`);
  await page.getByRole("heading", { name: "Customer site" }).waitFor(WAIT);
  await page.getByLabel("Your name").fill("Lin Customer");
  await page.getByLabel("E-mail address").fill(values.email);
  await page.getByLabel("Message").fill("Sent from a static site on another origin.");
  // The stand-in widget puts its token into the form's cf-turnstile-response field.
  await expect.poll(() => page.locator('input[name="cf-turnstile-response"]').inputValue(), WAIT).not.toBe("");
}

describe("posting from another origin", () => {
  it("accepts fetch() from an allowed origin: 201 with an id that Gatepost stored", async () => {
    await openSite(inject("allowedSite"), "fetch");
    await page.getByRole("button", { name: "Send" }).click();
    const status = page.getByRole("status");
    await expect.poll(() => status.textContent(), WAIT).toMatch(/^201 accepted [0-9a-f-]{36}$/);
    const id = (await status.textContent())!.split(" ")[2];
    const thanks = await fetch(`${inject("baseUrl")}/f/contact/thanks/${id}`);
    expect(thanks.status).toBe(200);
    expect(await standinCalls()).toHaveLength(1);
    expect(errors, errors.join("\n")).toEqual([]);
  });

  it("accepts a plain HTML form from an allowed origin with a 303 to the thank-you page", async () => {
    await openSite(inject("allowedSite"), "plain");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("heading", { name: "Received" }).waitFor(WAIT);
    expect(page.url()).toMatch(new RegExp(`^${inject("baseUrl")}/f/contact/thanks/[0-9a-f-]{36}$`));
    expect(errors, errors.join("\n")).toEqual([]);
  });

  it("shows a plain HTML poster a readable error page for invalid fields, and keeps nothing", async () => {
    await openSite(inject("allowedSite"), "plain", { email: "not-an-email" });
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("heading", { name: "Contact us: not sent" }).waitFor(WAIT);
    await expect.poll(() => page.getByRole("alert").textContent(), WAIT).toContain("E-mail address must be a valid e-mail address");
    expect(await page.getByText("Error code:").textContent()).toContain("validation_failed");
    expect(await standinCalls()).toHaveLength(0);
  });

  it("refuses fetch() from an origin not on the list: the preflight fails, the provider is never asked", async () => {
    await openSite(inject("refusedSite"), "fetch");
    await page.getByRole("button", { name: "Send" }).click();
    await expect.poll(() => page.getByRole("status").textContent(), WAIT).toBe("network error");
    expect(await standinCalls()).toHaveLength(0);
    // Chromium reports the refused CORS request itself; nothing else may have failed.
    expect(errors.filter((e) => !/CORS|Failed to load resource|Failed to fetch/.test(e))).toEqual([]);
  });

  it("refuses a plain HTML form from an origin not on the list with a 403 page", async () => {
    await openSite(inject("refusedSite"), "plain");
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().includes("/api/forms/contact/submissions")),
      page.getByRole("button", { name: "Send" }).click(),
    ]);
    expect(response.status()).toBe(403);
    expect(response.headers()["gatepost-error-code"]).toBe("origin_not_allowed");
    await page.getByText("This form does not accept submissions from that site.").waitFor(WAIT);
    expect(await standinCalls()).toHaveLength(0);
  });
});

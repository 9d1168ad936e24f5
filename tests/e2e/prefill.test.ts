import type { Frame, FrameLocator, Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { newsletterForm } from "~/forms/newsletter";
import { WAIT, useBrowserPage } from "./browser-page";

// Prefill (docs/forms.md#prefill) as visitors meet it: a link that starts the newsletter filled
// (?email=, the campaign in ?utm_source=), and the same link's page on another site embedding the
// form with the one-line script, whose query reaches the framed form. The values start the fields off;
// what is stored (and so delivered) is what the form holds when the visitor presses Send, read back
// through the admin API as a script would.

let page: Page;
let errors: string[];
useBrowserPage((p, e) => {
  [page, errors] = [p, e];
});

async function storedFor(email: string) {
  const response = await fetch(`${inject("baseUrl")}/admin/api/submissions?form=newsletter&limit=20`, {
    headers: { Authorization: `Bearer ${inject("apiToken")}` },
  });
  const page = (await response.json()) as { items: Array<{ fields: Record<string, unknown> }> };
  return page.items.find((item) => item.fields.email === email)?.fields;
}

async function subscribe(form: Page | Frame | FrameLocator) {
  await form.getByLabel("I agree to receive the monthly newsletter").check();
  await form.getByText("Check complete — you can send the form.").waitFor(WAIT);
  await form.getByRole("button", { name: "Send" }).click();
  await form.getByText(newsletterForm.successMessage).waitFor(WAIT);
}

describe("prefill", () => {
  it("starts the fields from the link, keeps them editable, and sends what the visitor left", async () => {
    const run = Date.now().toString(36);
    await page.goto(`${inject("baseUrl")}/f/newsletter?email=${encodeURIComponent(`link-${run}@example.org`)}&utm_source=spring-mail`);
    const email = page.getByLabel("E-mail address");
    expect(await email.inputValue()).toBe(`link-${run}@example.org`);
    expect(await page.locator('input[name="source"]').inputValue()).toBe("spring-mail");
    await email.fill(`typed-${run}@example.org`);
    await subscribe(page);
    await expect.poll(() => storedFor(`typed-${run}@example.org`), WAIT).toMatchObject({ consent: true, source: "spring-mail" });
    expect(errors).toEqual([]);
  });

  it("reaches a form framed on another site from that page's own address", async () => {
    const run = Date.now().toString(36);
    const tag = `<script src="${inject("baseUrl")}/embed.js" data-form="newsletter" data-title="Newsletter" async></script>`;
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Customer site</title></head><body><h1>Customer site</h1>${tag}</body></html>`;
    const address = `${inject("allowedCrossSite")}/raw.html?html=${Buffer.from(html).toString("base64url")}`;
    await page.goto(`${address}&utm_source=partner-${run}&email=${encodeURIComponent(`framed-${run}@example.org`)}`);
    const frame = page.frameLocator('iframe[title="Newsletter"]');
    await expect.poll(() => frame.getByLabel("E-mail address").inputValue(), WAIT).toBe(`framed-${run}@example.org`);
    await subscribe(frame);
    await expect.poll(() => storedFor(`framed-${run}@example.org`), WAIT).toMatchObject({ source: `partner-${run}` });
    expect(errors).toEqual([]);
  });
});

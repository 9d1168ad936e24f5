import type { Page } from "playwright-core";
import { describe, expect, it, inject } from "vitest";
import { WAIT, useBrowserPage } from "./browser-page";
import { standinCalls } from "./standin";

// The forms Gatepost renders from their schema: the landing page lists them, every field is labelled
// and hinted, errors are wired for assistive technology, and the newsletter works by keyboard alone.

let page: Page;
let errors: string[];
useBrowserPage((p, e) => {
  [page, errors] = [p, e];
});

async function waitForCaptcha() {
  await page.getByText("Check complete — you can send the form.").waitFor(WAIT);
  await expect.poll(() => page.getByRole("button", { name: "Send" }).isEnabled(), WAIT).toBe(true);
}

/** Presses Tab until `name` has focus (at most 15 times); the honeypot must never get it on the way. */
async function tabTo(name: string) {
  for (let i = 0; i < 15; i++) {
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name ?? "");
    expect(focused).not.toBe("_gp_hp");
    if (focused === name) return;
  }
  throw new Error(`Tab never reached ${name}`);
}

describe("forms from their schema", () => {
  it("lists the public forms on / and opens the newsletter from there", async () => {
    await page.goto(inject("baseUrl"));
    await page.getByRole("link", { name: "Contact us" }).waitFor(WAIT);
    await page.getByRole("link", { name: "Newsletter" }).click();
    await page.getByRole("heading", { name: "Newsletter" }).waitFor(WAIT);
    expect(errors, errors.join("\n")).toEqual([]);
  });

  it("gives every field a label and a hint, tied together with aria-describedby", async () => {
    for (const formId of ["contact", "newsletter"]) {
      await page.goto(`${inject("baseUrl")}/f/${formId}`);
      await page.getByRole("button", { name: "Send" }).waitFor(WAIT);
      const fields = await page.evaluate(() =>
        [...document.querySelectorAll("form [id^='field-']:is(input, textarea, select)")].map((el) => ({
          id: el.id,
          label: document.querySelector(`label[for="${el.id}"]`)?.textContent?.trim() ?? "",
          described: (el.getAttribute("aria-describedby") ?? "").split(" ").filter(Boolean),
        })),
      );
      expect(fields.length).toBeGreaterThan(1);
      for (const field of fields) {
        expect(field.label, `${formId} ${field.id} label`).not.toBe("");
        expect(field.described, `${formId} ${field.id} hint`).toContain(`${field.id}-hint`);
      }
    }
  });
});

describe("the newsletter by keyboard alone", () => {
  it("shows errors wired to their fields, focuses the summary and keeps the values", async () => {
    await page.goto(`${inject("baseUrl")}/f/newsletter`);
    await page.getByRole("heading", { name: "Newsletter" }).waitFor(WAIT);
    await waitForCaptcha();
    await tabTo("email");
    await page.keyboard.type("reader@example.org");
    await tabTo("consent");
    // Consent left unticked: Tab on to Send and press Enter.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Send");
    await page.keyboard.press("Enter");
    await page.getByRole("alert").getByText("There is a problem").waitFor(WAIT);
    await expect.poll(() => page.evaluate(() => document.activeElement?.className), WAIT).toBe("summary");
    const consent = page.getByLabel("I agree to receive the monthly newsletter");
    expect(await consent.getAttribute("aria-invalid")).toBe("true");
    expect(await consent.getAttribute("aria-describedby")).toBe("field-consent-hint field-consent-error");
    expect(await page.locator("#field-consent-error").textContent()).toBe(
      "I agree to receive the monthly newsletter must be ticked to continue.",
    );
    expect(await page.getByLabel("E-mail address").inputValue()).toBe("reader@example.org");
    expect(await standinCalls()).toHaveLength(0);

    // The summary's link takes the keyboard to the field; Space ticks it; Enter on Send sends.
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.evaluate(() => document.activeElement?.id), WAIT).toBe("field-consent");
    await page.keyboard.press("Space");
    expect(await consent.isChecked()).toBe(true);
    await waitForCaptcha();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Send");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Received" }).waitFor(WAIT);
    expect(page.url()).toMatch(/\/f\/newsletter\/thanks\/[0-9a-f-]{36}$/);
    expect(await standinCalls()).toHaveLength(1);
    // Chromium logs the refused post's 422 itself; nothing else may have failed.
    const unexpected = errors.filter((e) => !e.includes("status of 422"));
    expect(unexpected, unexpected.join("\n")).toEqual([]);
  });
});

describe("the trap on Gatepost's own page", () => {
  it("shows a bot that fills the hidden field exactly the thank-you page a person gets", async () => {
    await page.goto(`${inject("baseUrl")}/f/newsletter`);
    await page.getByLabel("E-mail address").fill("bot@example.org");
    await page.getByLabel("I agree to receive the monthly newsletter").check();
    // What a form-filling bot does: it fills every input it finds, including the invisible one.
    await page.evaluate(() => {
      (document.querySelector('input[name="_gp_hp"]') as HTMLInputElement).value = "https://spam.example";
    });
    await waitForCaptcha();
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("heading", { name: "Received" }).waitFor(WAIT);
    expect(page.url()).toMatch(/\/f\/newsletter\/thanks\/[0-9a-f-]{36}$/);
    expect(errors, errors.join("\n")).toEqual([]);
  });
});

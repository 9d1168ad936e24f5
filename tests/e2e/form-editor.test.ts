import type { Page } from "playwright-core";
import { describe, expect, it, inject } from "vitest";
import { E2E_ADMIN_PASSWORD } from "./bindings";
import { WAIT, axeViolations, patient, screenshotsDir, useBrowser } from "./browser-page";
import { watchErrors } from "./chromium";

// The editor shows what it does (issue 51), on a 1366×768 laptop: each field type shows only its own
// settings, a choice's options are in view, the heading and the preview follow typing before any
// save, a field and the preview are on screen together, and the page is short. Without JavaScript
// the same form still edits and saves, its type's settings following the saved type.

const LAPTOP = { width: 1366, height: 768 };
const browser = useBrowser();
/** Every setting's label and the types that own it (lib/form-editor/field-settings.ts). */
const OWNERS: Record<string, string[]> = {
  "Fewest characters": ["text", "email", "url", "textarea", "hidden"],
  Pattern: ["text", "email", "url", "textarea", "hidden"],
  "Smallest number": ["number"],
  Options: ["select"],
  "Most files": ["file"],
  Hint: ["text", "email", "url", "textarea", "number", "select", "checkbox", "file"],
};

async function newForm(page: Page, id: string, title: string) {
  const base = inject("baseUrl");
  await page.goto(`${base}/admin/login?next=%2Fadmin%2Fforms`);
  await page.getByLabel("Password").fill(E2E_ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Forms", level: 1 }).waitFor(WAIT);
  await page.getByLabel("Form id").fill(id);
  await page.getByLabel("Title").fill(title);
  await page.getByRole("button", { name: "Create a draft" }).click();
  await page.getByRole("heading", { name: title, level: 1 }).waitFor(WAIT);
}

describe("the form editor on a laptop", () => {
  it("shows each type's own settings, the options in view, and a preview that follows typing beside the field", async () => {
    const context = await browser().newContext({ viewport: LAPTOP });
    const page = patient(await context.newPage());
    const errors = watchErrors(page);
    await newForm(page, `laptop-${Date.now().toString(36)}`, "Lunch poll");
    // The starter form's page: about 5,400 px before issue 51.
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(3_300);

    const field = page.getByRole("group", { name: /^Field 3 of 3:/ });
    for (const type of ["text", "email", "url", "textarea", "hidden", "number", "select", "checkbox", "file"]) {
      await field.getByLabel("Type").selectOption(type);
      for (const [label, owners] of Object.entries(OWNERS)) {
        expect([type, label, await field.getByLabel(label, { exact: true }).count()]).toEqual([type, label, owners.includes(type) ? 1 : 0]);
      }
    }

    // A choice: its options in view at once; heading, title and preview follow typing, nothing saved.
    await field.getByLabel("Type").selectOption("select");
    await field.getByLabel("Label").fill("Favourite dish");
    await page.getByRole("heading", { name: "Field 3 of 3: Favourite dish" }).waitFor(WAIT);
    await field.getByLabel("Options").fill("soup | Soup of the day\nsalad | Salad");
    await page.getByLabel("Title", { exact: true }).fill("Lunch vote");
    await page.getByRole("heading", { name: "Lunch vote", level: 1 }).waitFor(WAIT);
    const preview = page.getByRole("group", { name: "Preview of Lunch vote" });
    const dish = preview.getByRole("combobox", { name: "Favourite dish" });
    await expect.poll(() => dish.locator("option").allTextContents(), WAIT).toEqual(["Choose…", "Soup of the day", "Salad"]);
    await preview.getByRole("heading", { name: "Lunch vote" }).waitFor(WAIT);
    expect(await page.getByRole("status").textContent()).toBe("");

    // The options being typed and the preview are on screen together.
    await field.getByLabel("Options").scrollIntoViewIfNeeded();
    const inView = async (box: { y: number; height: number } | null) => box !== null && box.y >= 0 && box.y + box.height <= LAPTOP.height;
    expect(await inView(await field.getByLabel("Options").boundingBox())).toBe(true);
    expect(await inView(await dish.boundingBox())).toBe(true);
    await page.screenshot({ path: new URL("admin-form-editor-laptop.png", screenshotsDir()).pathname });
    expect(await axeViolations(page)).toEqual([]);

    // A new field is required unless unticked.
    await page.getByRole("button", { name: "Add a field" }).click();
    await page.getByRole("status").getByText("Added a field at the end.").waitFor(WAIT);
    expect(
      await page
        .getByRole("group", { name: /^Field 4 of 4:/ })
        .getByLabel("Required")
        .isChecked(),
    ).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("edits and saves without JavaScript, the type's settings following the saved type", async () => {
    const context = await browser().newContext({ viewport: LAPTOP, javaScriptEnabled: false });
    const page = patient(await context.newPage());
    await newForm(page, `nojs-${Date.now().toString(36)}`, "Plain poll");
    const field = page.getByRole("group", { name: /^Field 3 of 3:/ });
    await field.getByLabel("Label").fill("Favourite dish");
    await field.getByLabel("Type").selectOption("select");
    await page.getByRole("button", { name: "Save draft" }).click();
    await page.getByRole("heading", { name: "Field 3 of 3: Favourite dish" }).waitFor(WAIT);
    expect(await field.getByLabel("Fewest characters").count()).toBe(0);
    await field.getByLabel("Options").fill("soup | Soup\nsalad | Salad");
    await page.getByRole("button", { name: "Save draft" }).click();
    await page.getByRole("status").getByText("Draft saved.", { exact: false }).waitFor(WAIT);
    const dish = page.getByRole("group", { name: "Preview of Plain poll" }).getByRole("combobox", { name: "Favourite dish" });
    expect(await dish.locator("option").allTextContents()).toEqual(["Choose…", "Soup", "Salad"]);
    await context.close();
  });
});

import { describe, expect, inject, it } from "vitest";
import { E2E_ADMIN_PASSWORD } from "./bindings";
import { WAIT, axeViolations, useBrowser } from "./browser-page";

// Google Sheets and Airtable set in the console, in Chromium: a console form made here, its Sheets and
// Airtable settings typed on its Destinations page (pointed at the local sink's stand-ins), "Send a test"
// to each, and the row and the record on the sink page. The page also says what confirmations need.

const FORM_ID = `tables-${Date.now().toString(36)}`;
const browser = useBrowser();

describe("Google Sheets and Airtable from the console", () => {
  it("are set on a console form's Destinations page, and a test of each reaches the sink page", async () => {
    const context = await browser().newContext();
    const page = await context.newPage();
    const base = inject("baseUrl");
    const sinkOrigin = new URL(inject("sinkUrl")).origin;
    const { sheetsKey } = (await (await fetch(`${inject("sinkControl")}/state`)).json()) as { sheetsKey: string };

    await page.goto(`${base}/admin/login?next=%2Fadmin%2Fforms`);
    await page.getByLabel("Password").fill(E2E_ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Forms", level: 1 }).waitFor(WAIT);
    await page.getByLabel("Form id").fill(FORM_ID);
    await page.getByLabel("Title").fill("Table test");
    await page.getByRole("button", { name: "Create a draft" }).click();
    await page.getByRole("heading", { name: "Table test", level: 1 }).waitFor(WAIT);
    await page.getByRole("button", { name: "Publish" }).click();
    await page.getByText("Published as version 1.").waitFor(WAIT);
    await page.getByRole("link", { name: "Destinations" }).click();
    await page.getByRole("heading", { name: "Destinations", level: 1 }).waitFor(WAIT);
    await page.getByText("A confirmation reaches the public only through Cloudflare Email Sending").first().waitFor(WAIT);

    const settings: [string, string, string][] = [
      ["Google Sheets spreadsheet id", "New spreadsheet id", "1LocalSinkSpreadsheet0000000"],
      ["Google service account key", "New service account key (JSON)", sheetsKey],
      ["Google Sheets API URL", "New Google Sheets API URL", `${sinkOrigin}/sheets`],
      ["Airtable base id", "New base id (app…)", "appLocalSink00000"],
      ["Airtable table", "New table name or id", "Submissions"],
      ["Airtable personal access token", "New personal access token (pat…)", `patLocalSink00000.${"0".repeat(64)}`],
      ["Airtable API URL", "New Airtable API URL", `${sinkOrigin}/airtable`],
    ];
    for (const [title, label, value] of settings) {
      const region = page.getByRole("region", { name: title, exact: true });
      await region.getByLabel(label, { exact: true }).fill(value);
      await region.getByRole("button", { name: "Save" }).click();
      await page.getByText(`${title} saved.`).waitFor(WAIT);
    }
    // Secrets are never shown again.
    expect(await page.content()).not.toContain("PRIVATE KEY");
    expect(await axeViolations(page)).toEqual([]);

    for (const [button, region] of [
      ["Send a test to Google Sheets", "Delivery to sheets"],
      ["Send a test to Airtable", "Delivery to airtable"],
    ]) {
      await page.goto(`${base}/admin/forms/${FORM_ID}/destinations`);
      await page.getByRole("button", { name: button }).click();
      await page.getByRole("heading", { name: "Delivery timeline" }).waitFor(WAIT);
      await expect
        .poll(async () => {
          await page.reload();
          return page.getByRole("region", { name: region }).getByText("Delivered").count();
        }, WAIT)
        .toBeGreaterThan(0);
    }

    await page.goto(`${sinkOrigin}/`);
    await page.getByText("record rec", { exact: false }).first().waitFor(WAIT);
    await page.getByText("row 2 of tab Sheet1").first().waitFor(WAIT);
    await context.close();
  });
});

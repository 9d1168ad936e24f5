import { describe, expect, it, inject } from "vitest";
import { E2E_ADMIN_PASSWORD } from "./bindings";
import { WAIT, phonePage, useBrowser } from "./browser-page";

// What the console refuses, and says why, in Chromium (issue 37): an id whose settings would be another
// form's, a pattern outside the language RE2 and JavaScript share, and a destination inside the network.
// A field without a hint is no problem, only a suggestion.

const FORM_ID = `guard-${Date.now().toString(36)}`;
const browser = useBrowser();

describe("the console's guards", () => {
  it("refuses a clashing id, an unshared pattern and an inside URL, naming each; suggests a hint", async () => {
    const { context, page, errors } = await phonePage(browser());
    const base = inject("baseUrl");
    await page.goto(`${base}/admin/login?next=%2Fadmin%2Fforms`);
    await page.getByLabel("Password").fill(E2E_ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Forms", level: 1 }).waitFor(WAIT);

    // contact-slack's CONTACT_SLACK_WEBHOOK_URL would be form contact's Slack URL.
    await page.getByLabel("Form id").fill("contact-slack");
    await page.getByLabel("Title").fill("Clash");
    await page.getByRole("button", { name: "Create a draft" }).click();
    await page.getByText("would share a setting's name with another form", { exact: false }).waitFor(WAIT);
    await page.getByText(`which is form "contact"'s SLACK_WEBHOOK_URL`, { exact: false }).waitFor(WAIT);

    await page.getByLabel("Form id").fill(FORM_ID);
    await page.getByLabel("Title").fill("Guards");
    await page.getByRole("button", { name: "Create a draft" }).click();
    await page.getByRole("heading", { name: "Guards", level: 1 }).waitFor(WAIT);

    // A field without a hint: saved, and only suggested.
    await page.getByRole("button", { name: "Add a field" }).press("Enter");
    await page.getByRole("status").getByText("Added a field at the end.").waitFor(WAIT);
    await page.getByRole("button", { name: "Save draft" }).click();
    await page.getByRole("status").getByText("Draft saved.", { exact: false }).waitFor(WAIT);
    await page.getByRole("heading", { name: "Suggestions" }).waitFor(WAIT);
    await page.getByText("Field 4: a hint (shown under the label, read out with the field) would tell people what to enter.").waitFor(WAIT);
    expect(await page.getByText("to fix before publishing").count()).toBe(0);

    // \S reads U+00A0 differently in RE2 and JavaScript: refused with the reason.
    const first = page.getByRole("group", { name: /^Field 1 of 4/ });
    await first.getByLabel("Pattern", { exact: true }).fill("\\S+");
    await page.getByRole("button", { name: "Save draft" }).click();
    await page.getByText("uses \\s or \\S, which RE2 and JavaScript read differently", { exact: false }).first().waitFor(WAIT);

    // A webhook inside the network is refused when saved, whatever the spelling.
    await page.goto(`${base}/admin/forms/${FORM_ID}/destinations`);
    await page.getByRole("heading", { name: "Destinations", level: 1 }).waitFor(WAIT);
    await page.getByLabel("New webhook url").fill("https://0xa9.0xfe.0xa9.0xfe/latest/meta-data");
    await page.getByRole("region", { name: "Webhook URL", exact: true }).getByRole("button", { name: "Save" }).click();
    await page.getByText("must not reach inside: 169.254.169.254 is an IP address (linkLocal)", { exact: false }).waitFor(WAIT);

    // The refusals' own statuses (409 for the id, 400 for the URL) are the only failed loads Chromium may report.
    expect(
      errors.filter((e) => !/status of (409|400)/.test(e)),
      errors.join("\n"),
    ).toEqual([]);
    await context.close();
  });
});

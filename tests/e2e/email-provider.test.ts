import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CONFIRMATION_NEEDS } from "~/lib/destinations/confirmation/spec";
import { launchBrowser, watchErrors } from "./chromium";
import { WAIT, axeViolations, patient } from "./browser-page";
import { startOwnSite, type OwnSite } from "./own-site";

// An HTTP e-mail provider set in the console, in Chromium (ADR 092): an admin types the contact form's
// provider, key and (for the stand-in) API URL on its Destinations page, sends a test to the owner's
// e-mail, and the message arrives on the local sink's page, sent through that provider; switching
// confirmations on shows, right there, what they need to reach the public. Its own server: the other
// e2e files' contact form has no EMAIL_FROM and must not start sending e-mail.

const PASSWORD = "email provider e2e password 0123";

let browser: Browser;
let site: OwnSite;

beforeAll(async () => {
  site = await startOwnSite("provider", {
    password: PASSWORD,
    secret: `whsec_${Buffer.from("provider-e2e-secret-0123456789ab").toString("base64")}`,
    bindings: (_sink, port) => ({
      FORM_MIN_FILL_SECONDS: "0",
      EMAIL_FROM: "forms@example.org",
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      CONTACT_EMAIL_TO: "owner@example.org",
      SETTINGS_ENCRYPTION_KEY: "e2e-provider-settings-key-0123456789abcdef",
    }),
  });
  browser = await launchBrowser(inject("chromiumPath"));
});

/** A page in its own context (axe needs one), signed in as admin on the contact form's Destinations page. */
async function destinationsPage() {
  const page = patient(await (await browser.newContext()).newPage());
  const errors = watchErrors(page);
  await page.goto(`${site.url}/admin/login?next=%2Fadmin%2Fforms%2Fcontact%2Fdestinations`);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Destinations", level: 1 }).waitFor(WAIT);
  return { page, errors };
}

afterAll(async () => {
  await browser?.close();
  await site?.stop();
});

describe("an HTTP e-mail provider set in the console", () => {
  for (const [provider, key] of [
    ["resend", "re_e2e_standin_0123456789"],
    ["postmark", "pm-e2e-standin-token-0123"],
  ] as const) {
    it(`sends the owner's test e-mail through ${provider}, which the sink page shows`, async () => {
      const { page, errors } = await destinationsPage();

      const settings: [string, string, string][] = [
        ["E-mail provider", "New e-mail provider (resend or postmark)", provider],
        ["E-mail provider API key", "New e-mail provider API key", key],
        ["E-mail provider API URL", "New E-mail provider API URL", `${site.sink.origin}/${provider}`],
      ];
      for (const [title, label, value] of settings) {
        const region = page.getByRole("region", { name: title, exact: true });
        await region.getByLabel(label, { exact: true }).fill(value);
        await region.getByRole("button", { name: "Save" }).click();
        await page.getByText(`${title} saved.`).waitFor(WAIT);
      }
      await page.getByRole("region", { name: "E-mail provider", exact: true }).getByText(`Set here: ${provider}`).waitFor(WAIT);
      // The key is sealed and never shown again.
      expect(await page.content()).not.toContain(key);

      const before = site.sink.snapshot().messages.length;
      await page.getByRole("button", { name: "Send a test to the owner e-mail" }).click();
      await page.getByRole("heading", { name: "Delivery timeline" }).waitFor(WAIT);
      await expect
        .poll(async () => {
          await page.reload();
          return page.getByRole("region", { name: "Delivery to email" }).getByText("Delivered", { exact: true }).count();
        }, WAIT)
        .toBeGreaterThan(0);
      const sent = site.sink.snapshot().messages.slice(before) as { kind: string; provider?: string; title: string }[];
      expect(sent.map((m) => [m.kind, m.provider])).toEqual([["email", provider]]);

      const sinkPage = patient(await browser.newPage());
      await sinkPage.goto(site.sink.pageUrl);
      const article = sinkPage.getByRole("article").filter({ has: sinkPage.getByRole("heading", { name: `email ${sent[0].title}` }) });
      await article.filter({ hasText: provider }).first().waitFor(WAIT);
      await sinkPage.close();
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }

  it("says what confirmations need where they are switched on", async () => {
    const { page, errors } = await destinationsPage();
    const region = page.getByRole("region", { name: "Confirmation to the sender", exact: true });
    await region.getByRole("button", { name: "Switch confirmations on" }).click();
    await page.getByText("Confirmation to the sender saved.").waitFor(WAIT);
    await region.getByRole("button", { name: "Switch confirmations off" }).waitFor(WAIT);
    await region.getByText(CONFIRMATION_NEEDS, { exact: true }).waitFor(WAIT);
    expect(await axeViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

import { afterEach, describe, expect, it } from "vitest";
import { contactForm } from "~/forms/contact";
import { sender as airtableSender, forgetAirtableSends } from "~/lib/destinations/airtable/sender.server";
import { settingVariable, type KindAttempt, type KindSender } from "~/lib/destinations/sender.server";
import { forgetSheetsTokens, sender as sheetsSender } from "~/lib/destinations/sheets/sender.server";
import { parseSettings } from "~/lib/settings/settings.server";
import type { FormDef } from "~/forms/schema";
import { localSinkSettings } from "~/lib/settings/local-sink.server";
import type { StoredSubmission } from "~/lib/storage/submissions.server";
// @ts-expect-error - plain ESM shared with npm start
import { AIRTABLE_LOCAL } from "~/lib/destinations/airtable/sink.mjs";
// @ts-expect-error - plain ESM shared with npm start
import { SHEETS_LOCAL_ID } from "~/lib/destinations/sheets/sink.mjs";
// @ts-expect-error - plain ESM test support shared with npm start and the bench
import { startWebhookSink } from "../../dev/local-sink.mjs";

// Under `npm start` the local sink stands in for Google Sheets and Airtable (scripts/start.mjs points the
// form files' settings at it): the real senders, over loopback, make a row and a record appear on its page.

interface Sink {
  origin: string;
  pageUrl: string;
  sheetsKey: string;
  snapshot(): { messages: { kind: string; text: string; reference: string | null }[] };
  close(): Promise<void>;
}
let sink: Sink | null = null;
afterEach(async () => {
  await sink?.close();
  sink = null;
});

const submission: StoredSubmission = {
  id: "7f1c2a9e-0000-4000-8000-000000000001",
  formId: "contact",
  formVersion: "v1",
  fields: { name: "Grace", email: "grace@example.org", message: "=1+1" },
  receivedAt: "2026-11-26T21:00:00.000Z",
  status: "accepted",
  quarantineReason: null,
  verification: null,
  test: false,
};

async function send(sender: KindSender, vars: Record<string, string>, form: FormDef = contactForm) {
  const settings = parseSettings({ ALLOW_LOOPBACK_WEBHOOKS: "true", ...vars });
  const destination = form.destinations.find((d) => d.kind === sender.kind)!;
  const own = settings.form(form.id);
  const target = sender.resolve({ settings, form, destination, name: sender.kind, own, variable: settingVariable(form.id) });
  if (!target.ok) throw new Error(target.reason);
  return sender.attempt(target.destination, {
    settings,
    form,
    submission: { ...submission, formId: form.id },
    nowMs: Date.now(),
    timeoutMs: 5000,
    mailer: null,
  } as unknown as KindAttempt);
}

describe("the local sink's Google Sheets and Airtable", () => {
  it("takes a row (the JWT checked against its own key) and a record, and shows both on its page", async () => {
    forgetSheetsTokens();
    forgetAirtableSends();
    const started: Sink = await startWebhookSink({ secret: `whsec_${Buffer.alloc(32, 7).toString("base64")}` });
    sink = started;
    const row = await send(sheetsSender, {
      CONTACT_SHEETS_SPREADSHEET_ID: SHEETS_LOCAL_ID,
      CONTACT_SHEETS_SERVICE_ACCOUNT_KEY: started.sheetsKey,
      CONTACT_SHEETS_API_URL: `${started.origin}/sheets`,
    });
    expect(row).toMatchObject({ delivered: true });
    const record = await send(airtableSender, {
      CONTACT_AIRTABLE_BASE_ID: AIRTABLE_LOCAL.baseId,
      CONTACT_AIRTABLE_TABLE: AIRTABLE_LOCAL.table,
      CONTACT_AIRTABLE_TOKEN: AIRTABLE_LOCAL.token,
      CONTACT_AIRTABLE_API_URL: `${started.origin}/airtable`,
    });
    expect(record).toMatchObject({ delivered: true });
    const messages = started.snapshot().messages;
    expect(messages.map((m) => [m.kind, m.reference])).toEqual([
      ["sheets", submission.id],
      ["airtable", submission.id],
    ]);
    expect(messages[0].text).toContain("Message: =1+1");
    const page = await (await fetch(started.pageUrl)).text();
    expect(page).toContain("record rec1 in table Submissions");
    expect(page).toContain("row 2 of tab Sheet1");
  });

  it("takes what the Worker's own local defaults name (a console form under npm start), a tab per form", async () => {
    forgetSheetsTokens();
    forgetAirtableSends();
    const started: Sink = await startWebhookSink({ secret: `whsec_${Buffer.alloc(32, 7).toString("base64")}` });
    sink = started;
    // A console form's settings while unset: the Worker's local defaults (app/lib/settings/local-sink.server.ts).
    const local = (formId: string) =>
      Object.fromEntries(
        Object.entries(localSinkSettings({ origin: started.origin, secret: "whsec_x", sheetsKey: started.sheetsKey }, formId)).map(
          ([suffix, value]) => [`${formId.toUpperCase()}_${suffix}`, value!],
        ),
      );
    const other: FormDef = { ...contactForm, id: "survey", fields: [{ name: "answer", type: "text", label: "Answer" }] };
    expect(await send(airtableSender, local("contact"))).toMatchObject({ delivered: true });
    expect(await send(sheetsSender, local("contact"))).toMatchObject({ delivered: true });
    expect(await send(sheetsSender, local("survey"), other)).toMatchObject({ delivered: true });
    // Each form's rows sit under its own header row, in its own tab of the one local spreadsheet.
    const titles = started.snapshot().messages.map((m) => `${m.kind}: ${(m as { title?: string }).title}`);
    expect(titles).toEqual(["airtable: record rec1 in table Submissions", "sheets: row 2 of tab contact", "sheets: row 2 of tab survey"]);
    const survey = started.snapshot().messages.at(-1)!;
    expect(survey.text).toContain("Answer: ");
    expect(survey.text).not.toContain("Message: ");
  });

  it("refuses a JWT signed by another key", async () => {
    forgetSheetsTokens();
    const started: Sink = await startWebhookSink({ secret: `whsec_${Buffer.alloc(32, 7).toString("base64")}` });
    sink = started;
    const other: Sink = await startWebhookSink({ secret: `whsec_${Buffer.alloc(32, 8).toString("base64")}` });
    const forged = JSON.stringify({
      ...JSON.parse(other.sheetsKey),
      token_uri: `${started.origin}/sheets/token`,
      client_email: JSON.parse(started.sheetsKey).client_email,
    });
    await other.close();
    const row = await send(sheetsSender, {
      CONTACT_SHEETS_SPREADSHEET_ID: SHEETS_LOCAL_ID,
      CONTACT_SHEETS_SERVICE_ACCOUNT_KEY: forged,
      CONTACT_SHEETS_API_URL: `${started.origin}/sheets`,
    });
    expect(row).toMatchObject({ delivered: false, httpStatus: 400 });
    expect(started.snapshot().messages).toEqual([]);
  });
});

import { beforeEach, describe, expect, it } from "vitest";
import { contactForm } from "~/forms/contact";
import { forgetSheetsTokens, headerRow, sender as sheetsSender } from "~/lib/destinations/sheets/sender.server";
import { settingVariable, type KindAttempt } from "~/lib/destinations/sender.server";
import { parseSettings } from "~/lib/settings/settings.server";
import type { StoredSubmission } from "~/lib/storage/submissions.server";
import { STANDIN_ORIGIN, startSheetsStandin, type SheetsStandin } from "~/lib/destinations/sheets/standin";

// Google Sheets against its stand-in (app/lib/destinations/sheets/standin.ts), which checks the JWT's RS256
// signature and claims before it gives a token: a header row once, then one row per submission in the
// form's field order, every value stored as typed (RAW: never a formula), the token kept until it expires.

const SPREADSHEET = "1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
let standin: SheetsStandin;

function settingsWith(overrides: Record<string, string> = {}) {
  return parseSettings({
    CONTACT_SHEETS_SPREADSHEET_ID: SPREADSHEET,
    CONTACT_SHEETS_TAB: "Leads 2026",
    CONTACT_SHEETS_SERVICE_ACCOUNT_KEY: standin.keyJson,
    CONTACT_SHEETS_API_URL: STANDIN_ORIGIN,
    ...overrides,
  });
}

function submission(id: string, message: string): StoredSubmission {
  return {
    id,
    formId: "contact",
    formVersion: "v3",
    fields: { name: "+Grace", email: "grace@example.org", message },
    receivedAt: "2026-11-26T20:00:00.000Z",
    status: "accepted",
    quarantineReason: null,
    verification: null,
    test: false,
  };
}

async function send(settings: ReturnType<typeof parseSettings>, stored: StoredSubmission, nowMs = Date.now()) {
  const destination = contactForm.destinations.find((d) => d.kind === "sheets")!;
  const own = settings.form("contact");
  const target = sheetsSender.resolve({
    settings,
    form: contactForm,
    destination,
    name: "sheets",
    own,
    variable: settingVariable("contact"),
  });
  if (!target.ok) throw new Error(target.reason);
  const input = {
    settings,
    form: contactForm,
    submission: stored,
    nowMs,
    timeoutMs: 2000,
    fetch: standin.fetch,
    mailer: null,
  } as unknown as KindAttempt;
  return sheetsSender.attempt(target.destination, input);
}

beforeEach(async () => {
  forgetSheetsTokens();
  standin = await startSheetsStandin([SPREADSHEET]);
});

describe("Google Sheets", () => {
  it("writes a header row into an empty tab, then one row per submission, formulas as text", async () => {
    const settings = settingsWith();
    expect(await send(settings, submission("s-1", '=HYPERLINK("https://evil.example")'))).toMatchObject({ delivered: true });
    expect(await send(settings, submission("s-2", "@SUM(A1)"))).toMatchObject({ delivered: true });
    expect(standin.rows.get(`${SPREADSHEET}/Leads 2026`)).toEqual([
      headerRow(contactForm),
      ["s-1", "2026-11-26T20:00:00.000Z", "v3", "+Grace", "grace@example.org", '=HYPERLINK("https://evil.example")'],
      ["s-2", "2026-11-26T20:00:00.000Z", "v3", "+Grace", "grace@example.org", "@SUM(A1)"],
    ]);
    expect(headerRow(contactForm)).toEqual(["Submission", "Received", "Form version", ...contactForm.fields.map((f) => f.label)]);
    // RAW: Sheets stores each value as typed and never parses one as a formula.
    expect(standin.appendQueries.every((query) => new URLSearchParams(query).get("valueInputOption") === "RAW")).toBe(true);
    // One token for both, its JWT signed by the service account and checked by the stand-in.
    expect(standin.tokenRequests).toHaveLength(1);
    expect(standin.tokenRequests[0]).toMatchObject({ iss: standin.clientEmail, aud: `${STANDIN_ORIGIN}/token` });
  });

  it("asks for a new token once the kept one expires", async () => {
    const settings = settingsWith();
    const now = Date.now();
    // The stand-in checks claims on the real clock: the first token was issued just under an hour ago.
    expect(await send(settings, submission("s-1", "hello"), now - 3_540_001)).toMatchObject({ delivered: true });
    expect(await send(settings, submission("s-2", "hello"), now)).toMatchObject({ delivered: true });
    expect(standin.tokenRequests).toHaveLength(2);
  });

  it("classifies Google's refusals for the timeline: quota, access, missing sheet", async () => {
    const settings = settingsWith();
    standin.answer = 429;
    expect(await send(settings, submission("s-1", "x"))).toMatchObject({ delivered: false, error: "rate_limited" });
    standin.answer = 403;
    const refused = await send(settings, submission("s-1", "x"));
    expect(refused).toMatchObject({ delivered: false, error: "http_status", httpStatus: 403 });
    expect(refused.detail).toContain(`share the sheet with ${standin.clientEmail} as Editor`);
    standin.answer = null;
    const missing = await send(settingsWith({ CONTACT_SHEETS_SPREADSHEET_ID: "1ZZZZZZZZZZZZZZZZZZZZZZZZZZZ" }), submission("s-1", "x"));
    expect(missing).toMatchObject({ delivered: false, httpStatus: 404 });
    expect(missing.detail).toContain("no such spreadsheet");
  });

  it("is held, naming the variable, while its key is missing or not a service account key", () => {
    const destination = { kind: "sheets" as const };
    for (const [key, reason] of [
      ["", "CONTACT_SHEETS_SERVICE_ACCOUNT_KEY is not set"],
      ['{"type":"authorized_user"}', "CONTACT_SHEETS_SERVICE_ACCOUNT_KEY is not a service account key"],
    ]) {
      const settings = settingsWith({ CONTACT_SHEETS_SERVICE_ACCOUNT_KEY: key });
      const own = settings.form("contact");
      const target = sheetsSender.resolve({
        settings,
        form: contactForm,
        destination,
        name: "sheets",
        own,
        variable: settingVariable("contact"),
      });
      expect(target.ok ? "" : target.reason).toContain(reason);
    }
  });
});

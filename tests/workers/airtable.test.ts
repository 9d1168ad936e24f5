import { env, fetchMock } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { forgetAirtableSends } from "~/lib/destinations/airtable/sender.server";
import { AIRTABLE_STANDIN_ORIGIN, STANDIN_TOKEN, startAirtableStandin } from "~/lib/destinations/airtable/standin";
import { sinkEnv } from "./helpers";
import { acceptThenDrain } from "./outbox-helpers";

// Airtable on the outbox, in workerd with the real local D1: the contact form lists the kind, its
// settings switch it on, and the drain creates the record through the stand-in.

const BASE = "appAbCdEfGhIjKlMn";
const VALID = { name: "Grace Hopper", email: "grace@example.org", message: "+1 a ship in port is safe." };

beforeEach(async () => {
  // The answer's own attempt has no route to the service here: its stand-in host fails it at once, as
  // an unreachable service would, without a DNS lookup for a name that does not resolve.
  fetchMock.activate();
  fetchMock
    .get(AIRTABLE_STANDIN_ORIGIN)
    .intercept({ path: () => true, method: () => true })
    .replyWithError(new TypeError("no route to the stand-in's host"));
  forgetAirtableSends();
  await env.DB.exec("DELETE FROM delivery_attempts; DELETE FROM deliveries; DELETE FROM submissions");
});

afterEach(() => {
  fetchMock.deactivate();
});

describe("Airtable on the outbox", () => {
  it("creates the submission's record, fields by name, and shows it delivered", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const standin = startAirtableStandin({ [BASE]: ["Leads"] });
    const appEnv = sinkEnv({
      CONTACT_WEBHOOK_URL: "",
      CONTACT_SLACK_WEBHOOK_URL: "",
      CONTACT_DISCORD_WEBHOOK_URL: "",
      CONTACT_EMAIL_TO: "",
      CONTACT_CONFIRMATION: "",
      CONTACT_AIRTABLE_BASE_ID: BASE,
      CONTACT_AIRTABLE_TABLE: "Leads",
      CONTACT_AIRTABLE_TOKEN: STANDIN_TOKEN,
      CONTACT_AIRTABLE_API_URL: AIRTABLE_STANDIN_ORIGIN,
    });
    const { id, deliveries } = await acceptThenDrain(appEnv, VALID, standin.fetch);
    const [airtable] = deliveries;
    expect([airtable.destination, airtable.status, airtable.lastError]).toEqual(["airtable", "delivered", null]);
    expect(standin.records.get(`${BASE}/Leads`)).toEqual([
      { fields: expect.objectContaining({ Submission: id, ...VALID }), typecast: true },
    ]);
  });
});

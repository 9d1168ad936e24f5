import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { replayDead } from "~/lib/delivery/replay.server";
import { budgetFor, InvocationBudget } from "~/lib/platform/budget.server";
import { parseSettings } from "~/lib/settings/settings.server";
import { refusingInvocation } from "../support/platform-limits";
import { adminEnv, adminPost, sessionCookie } from "./admin-helpers";
import { api } from "./console-helpers";
import { appFetch, clearTables, sinkEnv } from "./helpers";
import { deliveryRows, storeDue } from "./outbox-helpers";

// Bulk replay of dead deliveries (docs/decisions/072): in chunks within the invocation's budget, with
// what is left reported so the caller goes on, filtered by destination and creation time, audited.

const settings = () => parseSettings(sinkEnv({ CONTACT_SLACK_WEBHOOK_URL: "https://hooks.slack.com/services/T/B/x" }));
const ENDPOINT = "/admin/api/deliveries/redeliver";

beforeEach(async () => {
  await clearTables();
  await env.DB.exec("DELETE FROM audit_log");
});

/** `n` submissions (a webhook and a Slack delivery each) made at `nowMs`, every delivery dead. */
async function storeDead(n: number, nowMs: number) {
  await storeDue(n, settings(), nowMs);
  await env.DB.exec("UPDATE deliveries SET status = 'dead', attempts = 9, last_error = 'HTTP 503' WHERE status = 'pending'");
}

const statusCount = async (status: string) => (await deliveryRows()).filter((row) => row.status === status).length;

describe("replaying dead deliveries in bulk", () => {
  it("requeues in chunks while the budget lasts, and says how many are left", async () => {
    await storeDead(20, Date.now());
    const small = new InvocationBudget({ d1Queries: 6, subrequests: 0, cpuMs: 10 }, { d1Queries: 0, subrequests: 0 });
    expect(await replayDead(env.DB, { formId: "contact" }, { nowMs: Date.now(), budget: small, chunk: 10 })).toEqual({
      ok: true,
      requeued: 30,
      remaining: 10,
    });
    const rows = await deliveryRows();
    // A fresh schedule, the webhook-id kept: the requeued rows are due now with no attempt counted.
    expect(rows.filter((row) => row.status === "pending").every((row) => row.attempts === 0 && row.last_error === null)).toBe(true);
    expect(await replayDead(env.DB, { formId: "contact" }, { nowMs: Date.now(), budget: budgetFor("free") })).toEqual({
      ok: true,
      requeued: 10,
      remaining: 0,
    });
    expect(await statusCount("pending")).toBe(40);
  });

  it("stops at the platform's refusal without losing a row, and reports the progress made", async () => {
    await storeDead(10, Date.now());
    const invocation = refusingInvocation(env.DB, fetch, { d1Queries: 5, subrequests: 50 });
    const result = await replayDead(invocation.db, { formId: "contact" }, { nowMs: Date.now(), budget: budgetFor("paid"), chunk: 3 });
    expect(invocation.counts.refusals).toBe(1);
    expect(result).toEqual({ ok: true, requeued: 6, remaining: 14 });
    expect([await statusCount("pending"), await statusCount("dead")]).toEqual([6, 14]);
  });

  it("takes one destination and a time range of creation", async () => {
    const t0 = Date.UTC(2026, 10, 20, 12);
    await storeDead(3, t0 - 3_600_000);
    await storeDead(2, t0);
    const from = new Date(t0 - 60_000).toISOString();
    expect(
      await replayDead(env.DB, { formId: "contact", destination: "slack", fromIso: from }, { nowMs: t0, budget: budgetFor("free") }),
    ).toEqual({ ok: true, requeued: 2, remaining: 0 });
    const pending = (await deliveryRows()).filter((row) => row.status === "pending");
    expect(pending.map((row) => row.destination)).toEqual(["slack", "slack"]);
    expect(pending.every((row) => row.created_at >= from)).toBe(true);
  });
});

describe("POST /admin/api/deliveries/redeliver", () => {
  it("requeues, answers with progress and audits it; refuses viewers, bad bodies and unknown forms", async () => {
    await storeDead(3, Date.now());
    const body = { formId: "contact", destination: "webhook" };
    const done = await api("POST", ENDPOINT, { body });
    expect(done.status).toBe(200);
    expect(await done.json()).toEqual({
      formId: "contact",
      destination: "webhook",
      from: null,
      to: null,
      requeued: 3,
      remaining: 0,
      done: true,
    });
    expect(await statusCount("pending")).toBe(3);
    const audit = await env.DB.prepare("SELECT action, target, detail FROM audit_log").all<{
      action: string;
      target: string;
      detail: string;
    }>();
    expect(audit.results).toHaveLength(1);
    expect(audit.results[0]).toMatchObject({ action: "form.redeliver-dead", target: "contact" });
    expect(JSON.parse(audit.results[0].detail)).toEqual({ destination: "webhook", from: null, to: null, requeued: 3, remaining: 0 });

    const bad = await api("POST", ENDPOINT, { body: { formId: "contact", from: "2026-11-20T10:00:00Z", to: "2026-11-19T10:00:00Z" } });
    expect(bad.status).toBe(422);
    expect(bad.headers.get("Gatepost-Error-Code")).toBe("redelivery_invalid");
    expect((await api("POST", ENDPOINT, { body: { formId: "contact", destination: "fax" } })).status).toBe(422);
    const unknown = await api("POST", ENDPOINT, { body: { formId: "no-such-form" } });
    expect([unknown.status, unknown.headers.get("Gatepost-Error-Code")]).toEqual([404, "form_not_found"]);
    expect((await api("POST", ENDPOINT, { body, token: null })).status).toBe(401);
    expect((await api("GET", ENDPOINT)).status).toBe(405);
  });

  it("is in the console too: a form's Destinations page queues the dead deliveries again and shows what is left", async () => {
    await storeDead(2, Date.now());
    const e = await adminEnv();
    const data = `?_data=${encodeURIComponent("routes/admin.forms.$formId_.destinations")}`;
    const post = (fields: Record<string, string>, role: "admin" | "viewer" = "admin") =>
      sessionCookie(role, e).then((cookie) =>
        appFetch(adminPost(`/admin/forms/contact/destinations${data}`, fields, { Cookie: cookie }), e),
      );
    expect((await post({ intent: "redeliver", destination: "slack" }, "viewer")).status).toBe(403);
    const answer = await post({ intent: "redeliver", destination: "slack", from: "2020-01-01T00:00", to: "" });
    expect(await answer.json()).toMatchObject({ ok: true, message: "Queued 2 dead deliveries of contact again." });
    expect(await statusCount("pending")).toBe(2);
    expect(await (await post({ intent: "redeliver", from: "2026-11-20T10:00", to: "2026-11-19T10:00" })).json()).toMatchObject({
      ok: false,
    });
  });
});

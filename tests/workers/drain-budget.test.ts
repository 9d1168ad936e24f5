import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { BATCH_SIZE, drainOutbox, LEASE_MS } from "~/lib/delivery/drain.server";
import { budgetFor } from "~/lib/platform/budget.server";
import { parseSettings } from "~/lib/settings/settings.server";
import { refusingInvocation } from "../support/platform-limits";
import { at, clearTables, sink, sinkEnv } from "./helpers";
import { storeDue } from "./outbox-helpers";

// The drain under the Free plan's per-invocation limits, which local workerd does not enforce: each
// tick runs through a D1 binding and a fetch that refuse past 50 calls exactly as the platform does
// (tests/support/platform-limits.ts). Nothing may be lost, and no refusal may count as an attempt.

const N = 40;

beforeEach(async () => {
  await sink.reset();
  await clearTables();
});

async function rows() {
  return (await env.DB.prepare("SELECT id, status, attempts, lease_owner FROM deliveries").all<Record<string, any>>()).results;
}

describe("the drain within the Free plan's per-invocation budget", () => {
  it("claims only what each tick affords, is never refused, and delivers everything over several ticks", async () => {
    const t0 = Date.now();
    await storeDue(N, parseSettings(sinkEnv()), t0);
    const settings = parseSettings(sinkEnv());
    const perTick: number[] = [];
    for (let tick = 0; tick < 20 && perTick.reduce((a, b) => a + b, 0) < N; tick++) {
      const invocation = refusingInvocation(env.DB);
      const report = await drainOutbox(invocation.db, settings, {
        fetch: invocation.fetch,
        budget: budgetFor("free"),
        now: at(t0 + tick * 60_000),
      });
      expect(invocation.counts.refusals).toBe(0);
      expect(invocation.counts.d1Queries).toBeLessThanOrEqual(50);
      perTick.push(report.delivered);
      expect(report.claimed).toBe(report.delivered);
    }
    // Each full tick stopped at its budget and left the rest, rather than running into the platform.
    expect(perTick[0]).toBeGreaterThan(0);
    expect(perTick[0]).toBeLessThan(N);
    expect(perTick.reduce((a, b) => a + b, 0)).toBe(N);
    expect((await rows()).every((row) => row.status === "delivered" && row.attempts === 1)).toBe(true);
    const seen = await sink.state();
    expect(seen.unique).toHaveLength(N);
    expect(seen.unique.every((u) => u.duplicates === 0)).toBe(true);
  });

  it("a drain that runs into the platform's refusals burns no attempt and loses nothing", async () => {
    const t0 = Date.now();
    await storeDue(N, parseSettings(sinkEnv()), t0);
    const settings = parseSettings(sinkEnv());
    // Paid's budget on a Free invocation: the drain's own count does not stop it, the platform does.
    const first = refusingInvocation(env.DB);
    const report = await drainOutbox(first.db, settings, { fetch: first.fetch, budget: budgetFor("paid"), now: at(t0) });
    expect(first.counts.refusals).toBeGreaterThan(0);
    expect(report.budgetSpent).toBe(true);
    expect(report.retrying + report.dead).toBe(0);
    // Refused rows are pending with no attempt counted, and no refusal is in the delivery log.
    const after = await rows();
    expect(after.filter((row) => row.status === "pending").every((row) => row.attempts === 0)).toBe(true);
    expect(after.some((row) => row.status === "dead")).toBe(false);
    const refusedLogs = await env.DB.prepare("SELECT COUNT(*) AS n FROM delivery_attempts WHERE error IS NOT NULL").first<{ n: number }>();
    expect(refusedLogs?.n).toBe(0);

    // Later ticks (each its own invocation, past the leases a refused settle left) deliver the rest.
    for (let tick = 1; tick < 20 && (await rows()).some((row) => row.status !== "delivered"); tick++) {
      const invocation = refusingInvocation(env.DB);
      await drainOutbox(invocation.db, settings, { fetch: invocation.fetch, budget: budgetFor("free"), now: at(t0 + tick * LEASE_MS) });
      expect(invocation.counts.refusals).toBe(0);
    }
    const done = await rows();
    expect(done.every((row) => row.status === "delivered" && row.attempts === 1)).toBe(true);
    const seen = await sink.state();
    expect(seen.unique).toHaveLength(N);
    // A batch's settle the platform refused after the receiver had its messages is sent again
    // (at-least-once, same webhook-ids): at most one batch of duplicates per refusal.
    const duplicates = seen.unique.reduce((sum, u) => sum + u.duplicates, 0);
    expect(duplicates).toBeLessThanOrEqual(first.counts.refusals * BATCH_SIZE);
  });
});

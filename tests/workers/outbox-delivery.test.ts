import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { contactForm } from "~/forms/contact";
import { parseSettings } from "~/lib/settings/settings.server";
import { deliverLeasedAfterResponse, drainOutbox, LEASE_MS } from "~/lib/delivery/drain.server";
import { claimDue } from "~/lib/storage/deliveries.server";
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from "~/lib/delivery/settle.server";
import { leasedOutbox, redeliverDead, redeliverSubmission } from "~/lib/delivery/outbox.server";
import { loadSubmissionDetail } from "~/lib/storage/console-queries.server";
import { getSubmission } from "~/lib/storage/submissions.server";
import { expectConsoleErrors } from "../support/fail-on-console";
import { storeInOneTrip } from "~/lib/storage/accept-batch.server";
import { appFetch, at, formPost, sink, sinkEnv, standin, standinToken } from "./helpers";

// Fault tests against the real local sink (a Node HTTP server on loopback). The drain runs here with
// an injected scheduling clock so a day of retries takes a second; signatures still use real time.

const VALID = { name: "Grace Hopper", email: "grace@example.org", message: "A ship in port is safe." };
const TIMEOUT_MS = 800; // injected; production keeps DELIVERY_TIMEOUT_MS (10 s)

beforeEach(async () => {
  await standin.reset();
  await sink.reset();
  await env.DB.exec("DELETE FROM delivery_attempts; DELETE FROM deliveries; DELETE FROM submissions");
});

async function acceptSome(n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await appFetch(
      formPost("/f/contact", { ...VALID, message: `${VALID.message} #${i}`, "cf-turnstile-response": standinToken() }),
      sinkEnv(),
    );
    expect(res.status).toBe(303);
    ids.push((res.headers.get("location") ?? "").split("/").pop()!);
  }
  return ids;
}

/** Stores a submission with its outbox rows through the accept path's own batch (no limits, no key). */
function storeBeside(
  id: string,
  fields: Record<string, string>,
  verification: { hostname: string; action: string; challengeTs: string } | null,
  outbox: readonly D1PreparedStatement[],
  nowMs: number,
) {
  return storeInOneTrip(env.DB, {
    rules: [],
    nowMs,
    submission: { id, formId: "contact", fields, verification },
    key: null,
    fingerprint: null,
    outbox: { deliveries: outbox, confirmation: null },
  });
}

async function deliveries(): Promise<Array<Record<string, any>>> {
  return (await env.DB.prepare("SELECT * FROM deliveries ORDER BY id").all<Record<string, any>>()).results;
}

async function attemptsOf(id: string): Promise<Array<Record<string, any>>> {
  const { results } = await env.DB.prepare("SELECT * FROM delivery_attempts WHERE delivery_id = ?1 ORDER BY id").bind(id).all();
  return results as Array<Record<string, any>>;
}

/** Waits until the sink has settled every request it saw (slow ones finish after their delay). */
async function settledSink() {
  for (let i = 0; i < 50; i++) {
    const state = await sink.state();
    if (state.requests.every((r) => r.outcome !== "")) return state;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the sink never settled");
}

describe("retries through down, 500, slow, reset, then recovery", () => {
  it("delivers every accepted submission exactly once per webhook-id, loses none, and logs what the sink saw", async () => {
    await sink.setMode("down");
    const submissionIds = await acceptSome(4); // first attempts (waitUntil) hit a closed port
    let rows = await deliveries();
    expect(rows.map((r) => r.submission_id).sort()).toEqual([...submissionIds].sort());
    expect(rows.every((r) => r.status === "pending" && r.attempts === 1)).toBe(true);

    let clock = Math.max(...rows.map((r) => r.next_attempt_at)) + 1;
    const phases = ["http500", "slow", "reset", "normal"] as const;
    for (const phase of phases) {
      await sink.setMode(phase, { delayMs: 2_500 });
      // 16 failures in a row would pause the webhook (destination-pause.test.ts); here each kind of
      // failure is retried on the schedule, so the pause is set out of reach.
      const report = await drainOutbox(env.DB, parseSettings(sinkEnv()), { now: at(clock), timeoutMs: TIMEOUT_MS, pauseAfter: 100 });
      expect(report.claimed).toBe(4);
      rows = await deliveries();
      clock = Math.max(...rows.map((r) => r.next_attempt_at)) + 1;
    }
    expect(rows.every((r) => r.status === "delivered" && r.attempts === 5 && r.lease_owner === null)).toBe(true);
    // The operator console's reading of the outbox (its one DeliveryView shape).
    const detail = await loadSubmissionDetail(env.DB, submissionIds[0]);
    expect(detail?.submission.id).toBe(submissionIds[0]);
    const [view] = detail!.deliveries;
    expect(view).toMatchObject({ status: "delivered", attempts: 5 });
    expect(view.log.map((a) => a.error)).toEqual(["network", "http_status", "timeout", "network", null]);
    expect(await drainOutbox(env.DB, parseSettings(sinkEnv()), { now: at(clock + 86_400_000) })).toMatchObject({ claimed: 0 });

    const seen = await settledSink();
    // A deduplicating receiver holds each webhook-id exactly once, and every delivery is there.
    expect(seen.unique.map((u) => u.id).sort()).toEqual(rows.map((r) => r.id).sort());
    expect(seen.unique.every((u) => u.duplicates === 0)).toBe(true);
    expect(seen.unique.map((u) => u.payload.submission.id).sort()).toEqual([...submissionIds].sort());

    for (const row of rows) {
      const log = await attemptsOf(row.id);
      expect(log.map((a) => [a.error, a.http_status])).toEqual([
        ["network", null], // down: connection refused, the sink saw nothing
        ["http_status", 500],
        ["timeout", null],
        ["network", null], // reset
        [null, 200],
      ]);
      expect(log[1].response_excerpt).toBe("sink: simulated failure");
      expect(log[2].latency_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
      // What the sink saw for this id, in order, matches the log (minus the attempt it never received).
      const sinkSide = seen.requests.filter((r) => r.id === row.id).map((r) => [r.mode, r.outcome, r.status]);
      expect(sinkSide).toEqual([
        ["http500", "http500", 500],
        ["slow", "abandoned", 0],
        ["reset", "reset", 0],
        ["normal", "accepted", 200],
      ]);
    }
  });

  it("spaces retries by the schedule with jitter, over more than 24 hours, then marks the delivery dead", async () => {
    await sink.setMode("http500");
    const [submissionId] = await acceptSome(1);
    let [row] = await deliveries();
    const gaps: number[] = [];
    let previous = Date.now();
    while (row.status === "pending") {
      gaps.push(row.next_attempt_at - previous);
      previous = row.next_attempt_at;
      await drainOutbox(env.DB, parseSettings(sinkEnv()), { now: at(row.next_attempt_at) });
      [row] = await deliveries();
    }
    expect(row).toMatchObject({ status: "dead", attempts: MAX_ATTEMPTS, last_error: "HTTP 500" });
    const [view] = (await loadSubmissionDetail(env.DB, submissionId))!.deliveries;
    expect(view).toMatchObject({ id: row.id, status: "dead", lastError: "HTTP 500" });
    expect(view.log).toHaveLength(MAX_ATTEMPTS);
    expect(await attemptsOf(row.id)).toHaveLength(MAX_ATTEMPTS);
    expect((await settledSink()).requests).toHaveLength(MAX_ATTEMPTS);
    RETRY_DELAYS_MS.forEach((delay, i) => {
      expect(gaps[i]).toBeGreaterThanOrEqual(delay * 0.8 - 1_000);
      expect(gaps[i]).toBeLessThanOrEqual(delay * 1.2 + 1_000);
    });
    expect(gaps.reduce((a, b) => a + b, 0)).toBeGreaterThan(24 * 3_600_000);
    // Dead is not deleted and is not retried on its own.
    expect(await drainOutbox(env.DB, parseSettings(sinkEnv()), { now: at(Date.now() + 30 * 86_400_000) })).toMatchObject({ claimed: 0 });

    // Redelivery of the form's dead deliveries keeps the webhook-id.
    await sink.setMode("normal");
    expect(await redeliverDead(env.DB, "contact", Date.now())).toEqual({ ok: true, requeued: 1, keptConfirmations: 0 });
    expect(await drainOutbox(env.DB, parseSettings(sinkEnv()))).toMatchObject({ claimed: 1, delivered: 1 });
    const seen = await sink.state();
    expect(seen.unique.map((u) => u.id)).toEqual([row.id]);
    expect(seen.unique[0].payload.submission.id).toBe(submissionId);
    expect(await attemptsOf(row.id)).toHaveLength(MAX_ATTEMPTS + 1);
  });
});

describe("leases", () => {
  it("an accepting request that dies before its first attempt holds its rows only until the lease lapses", async () => {
    // The accept batch inserts the rows already leased to the request, which then dies before
    // sending (nothing is handed to waitUntil here).
    const id = crypto.randomUUID();
    const t = Date.now();
    const outbox = leasedOutbox(env.DB, parseSettings(sinkEnv()), contactForm, id, t, `accept:${id}`, LEASE_MS);
    const stored = await storeBeside(id, VALID, null, outbox.statements, t);
    expect(stored.kind).toBe("stored");
    expect(await deliveries()).toMatchObject([
      { id: outbox.claims[0].id, status: "pending", attempts: 0, lease_owner: `accept:${id}`, lease_until: t + LEASE_MS },
    ]);

    expect(await drainOutbox(env.DB, parseSettings(sinkEnv()), { now: at(t + LEASE_MS - 1) })).toMatchObject({ claimed: 0 });
    expect((await sink.state()).requests).toHaveLength(0);
    expect(await drainOutbox(env.DB, parseSettings(sinkEnv()), { now: at(t + LEASE_MS) })).toMatchObject({ claimed: 1, delivered: 1 });
    expect(await deliveries()).toMatchObject([{ status: "delivered", attempts: 1, lease_owner: null }]);
    expect((await sink.state()).unique.map((u) => u.id)).toEqual([outbox.claims[0].id]);
  });

  it("the first attempt from memory sends exactly what the drain would send from D1, and logs its outcome", async () => {
    const id = crypto.randomUUID();
    const t = Date.now();
    const owner = `accept:${id}`;
    const outbox = leasedOutbox(env.DB, parseSettings(sinkEnv()), contactForm, id, t, owner, LEASE_MS);
    const verification = { hostname: "example.com", action: "contact", challengeTs: "2026-11-22T10:00:00Z" };
    const stored = await storeBeside(id, { ...VALID, message: 'émoji ✓ "quoted"' }, verification, outbox.statements, t);
    if (stored.kind !== "stored") throw new Error("store failed");
    expect(stored.stored).toEqual(await getSubmission(env.DB, "contact", id));

    await sink.setMode("down");
    expect(await deliverLeasedAfterResponse(env.DB, parseSettings(sinkEnv()), contactForm, stored.stored, outbox.claims, owner)).toEqual({
      claimed: 1,
      delivered: 0,
      retrying: 1,
      dead: 0,
      released: 0,
      budgetSpent: false,
    });
    const [failed] = await deliveries();
    expect(failed).toMatchObject({ status: "pending", attempts: 1, lease_owner: null });
    expect(failed.next_attempt_at).toBeGreaterThanOrEqual(t + RETRY_DELAYS_MS[0] * 0.8);
    expect(await attemptsOf(failed.id)).toHaveLength(1);

    await sink.setMode("normal");
    expect(await drainOutbox(env.DB, parseSettings(sinkEnv()), { now: at(failed.next_attempt_at) })).toMatchObject({
      claimed: 1,
      delivered: 1,
    });
    const fromDrain = (await sink.state()).unique[0].payload;
    await sink.reset();
    await deliverLeasedAfterResponse(env.DB, parseSettings(sinkEnv()), contactForm, stored.stored, outbox.claims, owner);
    expect((await sink.state()).unique[0].payload).toEqual(fromDrain);
  });

  it("a drainer killed after its claim holds the row only until the lease expires; then it is delivered", async () => {
    await sink.setMode("down");
    await acceptSome(1);
    const [row] = await deliveries();
    const t = row.next_attempt_at;
    await sink.setMode("normal");

    const claimed = await claimDue(env.DB, { owner: "doomed-drainer", nowMs: t, limit: 10, leaseMs: LEASE_MS }); // …and then it dies
    expect(claimed.map((c) => c.id)).toEqual([row.id]);
    // While the lease holds, no other drainer sends the same attempt.
    expect(await drainOutbox(env.DB, parseSettings(sinkEnv()), { now: at(t + LEASE_MS - 1) })).toMatchObject({ claimed: 0 });
    expect((await sink.state()).requests).toHaveLength(0);

    expect(await drainOutbox(env.DB, parseSettings(sinkEnv()), { now: at(t + LEASE_MS) })).toMatchObject({ claimed: 1, delivered: 1 });
    const [done] = await deliveries();
    expect(done).toMatchObject({ status: "delivered", attempts: 2, lease_owner: null });
    expect((await sink.state()).unique.map((u) => u.id)).toEqual([row.id]);
  });

  it("a drainer killed after sending but before logging leads to one duplicate the receiver can drop", async () => {
    await sink.setMode("down");
    await acceptSome(1);
    const [row] = await deliveries();
    await sink.setMode("normal");
    // A D1 handle whose batch() fails stands for a drainer that dies once the request went out. Its
    // first read, of the form catalog, fails too: the drain goes on with the form files (logged).
    const catalogLost = expectConsoleErrors(/form catalog could not be read from D1: Error: drainer killed/);
    const dying = new Proxy(env.DB, {
      get(target, key) {
        if (key === "batch") return () => Promise.reject(new Error("drainer killed"));
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    await expect(drainOutbox(dying, parseSettings(sinkEnv()), { now: at(row.next_attempt_at) })).rejects.toThrow("drainer killed");
    expect(catalogLost()).toHaveLength(1);
    expect((await deliveries())[0]).toMatchObject({ status: "pending", lease_owner: expect.any(String) });

    const later = row.next_attempt_at + LEASE_MS;
    expect(await drainOutbox(env.DB, parseSettings(sinkEnv()), { now: at(later) })).toMatchObject({ claimed: 1, delivered: 1 });
    const seen = await sink.state();
    expect(seen.requests.map((r) => r.outcome)).toEqual(["accepted", "duplicate"]);
    expect(seen.unique).toHaveLength(1);
    expect(seen.unique[0]).toMatchObject({ id: row.id, duplicates: 1 });
    expect((await deliveries())[0].status).toBe("delivered");
  });

  it("two drainers running at once never claim the same delivery", async () => {
    await sink.setMode("down");
    await acceptSome(5);
    const rows = await deliveries();
    const t = Math.max(...rows.map((r) => r.next_attempt_at));
    const [a, b] = await Promise.all([
      claimDue(env.DB, { owner: "a", nowMs: t, limit: 3, leaseMs: LEASE_MS }),
      claimDue(env.DB, { owner: "b", nowMs: t, limit: 3, leaseMs: LEASE_MS }),
    ]);
    const ids = [...a, ...b].map((c) => c.id);
    expect(ids).toHaveLength(5);
    expect(new Set(ids).size).toBe(5);
  });
});

describe("redelivery", () => {
  it("re-queues one submission's deliveries whatever their status, keeping the webhook-id", async () => {
    const [submissionId] = await acceptSome(1);
    const [row] = await deliveries();
    expect(row.status).toBe("delivered");
    expect(await redeliverSubmission(env.DB, submissionId, Date.now())).toEqual({ ok: true, requeued: 1, keptConfirmations: 0 });
    expect((await deliveries())[0]).toMatchObject({ id: row.id, status: "pending", attempts: 0 });
    await drainOutbox(env.DB, parseSettings(sinkEnv()));
    const seen = await sink.state();
    expect(seen.requests.map((r) => [r.id, r.outcome])).toEqual([
      [row.id, "accepted"],
      [row.id, "duplicate"],
    ]);
  });

  it("answers with catalogue codes for an unknown submission and one without destination", async () => {
    expect(await redeliverSubmission(env.DB, "no-such-submission", Date.now())).toEqual({
      ok: false,
      code: "redelivery_unknown_submission",
    });
    const res = await appFetch(formPost("/f/contact", { ...VALID, "cf-turnstile-response": standinToken() }));
    const plain = (res.headers.get("location") ?? "").split("/").pop()!;
    expect(await redeliverSubmission(env.DB, plain, Date.now())).toEqual({ ok: false, code: "redelivery_no_destination" });
    // An unknown form is refused by the console's action, which finds forms in the catalog (console-forms.test.ts).
    expect(await redeliverDead(env.DB, "contact", Date.now())).toEqual({ ok: true, requeued: 0, keptConfirmations: 0 });
  });
});

describe("delivery details", () => {
  it("does not follow redirects and logs only the first 1 KiB of a response", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    await sink.setMode("down");
    await acceptSome(1);
    const [row] = await deliveries();
    const fake = (async () =>
      new Response("x".repeat(5_000), { status: 302, headers: { location: "https://elsewhere.example/" } })) as typeof fetch;
    await drainOutbox(env.DB, parseSettings(sinkEnv()), { now: at(row.next_attempt_at), fetch: fake });
    const log = await attemptsOf(row.id);
    expect(log[1]).toMatchObject({ http_status: 302, error: "redirect" });
    expect(log[1].response_excerpt).toHaveLength(1024);
  });
});

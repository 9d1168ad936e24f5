import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it, vi } from "vitest";
import {
  CADENCE_MINUTES,
  MAINTENANCE_JOBS,
  nextCadenceRun,
  runMaintenance,
  type MaintenanceJob,
} from "~/lib/maintenance/maintenance.server";
import { parseSettings } from "~/lib/settings/settings.server";
import { budgetFor } from "~/lib/platform/budget.server";
import { indexPendingSubmissions } from "~/lib/storage/search-index.server";
import { seedSubmission } from "./admin-helpers";
import { at, countingDb, sink, sinkEnv } from "./helpers";

// The cron's first read decides which jobs run (docs/decisions/095).

const MINUTE = 60_000;
// A minute-aligned time at minute 0 of the cadence's ten.
const T0 = Math.floor(Date.UTC(2026, 10, 26, 12, 0) / MINUTE) * MINUTE;

beforeEach(async () => {
  vi.spyOn(console, "log").mockImplementation(() => {});
  await sink.reset();
  await env.DB.exec(
    "DELETE FROM delivery_attempts; DELETE FROM deliveries; DELETE FROM submissions; DELETE FROM rate_limits; DELETE FROM maintenance_cursors; DELETE FROM destination_health",
  );
});

function counted(bucket: R2Bucket) {
  let calls = 0;
  const proxy = new Proxy(bucket, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls += 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { bucket: proxy, calls: () => calls };
}

const context = (db: D1Database, bucket: R2Bucket, nowMs: number) => ({
  db,
  bucket,
  settings: parseSettings(sinkEnv()),
  mailer: null,
  now: at(nowMs),
});

describe("the cron's first read", () => {
  it("makes an idle minute cost that one D1 read and no R2 call", async () => {
    // The first run finds every job on a cadence due (none has run yet), runs them and books their next minute.
    const first = await runMaintenance(context(env.DB, env.UPLOADS, T0));
    expect(first.map((r) => r.name).sort()).toEqual(["apply-retention", "prune-rate-limits", "reseal-settings", "sweep-orphaned-files"]);

    const d1 = countingDb(env.DB);
    const r2 = counted(env.UPLOADS);
    const idle = await runMaintenance(context(d1.db, r2.bucket, T0 + MINUTE));
    expect(idle).toEqual([]);
    expect(d1.trips()).toBe(1);
    expect(r2.calls()).toBe(0);
  });

  it("wakes the drain for a due delivery, and the Free plan's calls go to deliveries", async () => {
    // Every job on a cadence ran a moment ago; the deliveries are due now (the sink checks signatures' times).
    const cadenced = MAINTENANCE_JOBS.filter((job) => job.when && "cadence" in job.when);
    for (const job of cadenced)
      await env.DB.prepare("INSERT INTO maintenance_cursors (name, value) VALUES (?1, ?2)")
        .bind(`next-run:${job.name}`, String(Date.now() + 10 * MINUTE))
        .run();
    const now = Date.now();
    for (let i = 0; i < 20; i++) await seedSubmission({ fields: { name: `Ada ${i}` }, deliveries: [{ status: "pending" }] });
    await env.DB.prepare("UPDATE deliveries SET next_attempt_at = ?1").bind(now).run();
    // Stored as after migration 0021 (the seed leaves state to the backfill).
    await env.DB.exec("UPDATE submissions SET state = 'pending'");
    // And indexed for search by an earlier run.
    expect(await indexPendingSubmissions(env.DB, budgetFor("paid"))).toMatchObject({ more: false });

    const [drain, ...others] = await runMaintenance(context(env.DB, env.UPLOADS, now));
    expect(others).toEqual([]);
    expect(drain).toMatchObject({ name: "drain-outbox", ok: true });
    // 50 D1 calls on Free: with no other job due, the drain gets all but the read and the slack; when
    // every job kept its share back (a run where all are due), it delivered 6 of them.
    const delivered = (drain as { result: { delivered: number } }).result.delivered;
    expect(delivered).toBeGreaterThanOrEqual(10);
    expect((await sink.state()).unique).toHaveLength(delivered);
  });

  it("runs a job on a cadence at its own minute, and at the next run again while it has more", async () => {
    const ran: number[] = [];
    let more = false;
    const job: MaintenanceJob = {
      name: "test-cadence",
      when: { cadence: 3, more: () => more },
      run: async ({ now }) => ran.push((now() - T0) / MINUTE),
    };
    for (let minute = 0; minute <= 14; minute++) {
      more = minute === 3;
      await runMaintenance(context(env.DB, env.UPLOADS, T0 + minute * MINUTE), [job]);
    }
    // Minute 0: never run yet; 3: its minute, with more left; 4: the rest; 13: its next minute.
    expect(ran).toEqual([0, 3, 4, 13]);
  });

  it("runs a cadence job that failed again at the next run", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    let calls = 0;
    const job: MaintenanceJob = {
      name: "test-failing",
      when: { cadence: 0 },
      run: async () => {
        calls += 1;
        if (calls === 1) throw new Error("boom");
      },
    };
    const results = [];
    for (let minute = 0; minute < 3; minute++)
      results.push(...(await runMaintenance(context(env.DB, env.UPLOADS, T0 + minute * MINUTE), [job])));
    expect(results.map((r) => r.ok)).toEqual([false, true]);
  });

  it("reports every job failed when D1 cannot answer the read", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const broken = countingDb(env.DB, () => ({ when: "before", message: "D1_ERROR: database unavailable" }));
    const results = await runMaintenance(context(broken.db, env.UPLOADS, T0));
    expect(results.map((r) => [r.name, r.ok])).toEqual(MAINTENANCE_JOBS.map((job) => [job.name, false]));
    expect(logged).toHaveBeenCalledOnce();
  });

  it("books each cadence minute strictly ahead, on the job's own minute", () => {
    expect(nextCadenceRun(T0, 0)).toBe(T0 + CADENCE_MINUTES * MINUTE);
    expect(nextCadenceRun(T0, 4)).toBe(T0 + 4 * MINUTE);
    expect(nextCadenceRun(T0 + 5 * MINUTE + 30_000, 4)).toBe(T0 + 14 * MINUTE);
    expect(nextCadenceRun(T0 + 3 * MINUTE, 4)).toBe(T0 + 4 * MINUTE);
  });
});

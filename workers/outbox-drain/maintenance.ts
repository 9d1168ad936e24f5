import { FORMS } from "~/forms/registry";
import { parseSettings } from "~/lib/settings/settings.server";
import { drainOutbox } from "~/lib/delivery/delivery.server";
import { pruneRateLimits } from "~/lib/http/rate-limit.server";
import { applyRetention } from "~/lib/storage/retention.server";

// The maintenance jobs the scheduled Worker runs every minute. Adding a job is adding an entry to
// MAINTENANCE_JOBS. (Kept apart from index.ts: a Worker module may only export handlers.)

export interface MaintenanceJob {
  name: string;
  run(env: Env, nowMs: number): Promise<unknown>;
}

export type JobResult = { name: string; ok: true; result: unknown } | { name: string; ok: false; error: string };

/** Per run: at most this many deliveries, and no new claims after this long (runs may overlap safely). */
export const DRAIN_LIMIT = 500;
export const DRAIN_BUDGET_MS = 45_000;

export const MAINTENANCE_JOBS: MaintenanceJob[] = [
  { name: "drain-outbox", run: (env) => drainOutbox(env.DB, parseSettings(env), { limit: DRAIN_LIMIT, budgetMs: DRAIN_BUDGET_MS }) },
  { name: "prune-rate-limits", run: (env, nowMs) => pruneRateLimits(env.DB, nowMs) },
  // admin (issue 5): each form's retentionDays (docs/decisions/005-retention-and-deletion.md).
  { name: "apply-retention", run: (env, nowMs) => applyRetention(env.DB, FORMS, nowMs) },
];

/** Runs every job side by side; one failing job is logged and never stops the others. */
export async function runMaintenance(env: Env, jobs = MAINTENANCE_JOBS, nowMs = Date.now()): Promise<JobResult[]> {
  const settled = await Promise.allSettled(jobs.map((job) => job.run(env, nowMs)));
  return settled.map((outcome, i): JobResult => {
    const name = jobs[i].name;
    if (outcome.status === "fulfilled") return { name, ok: true, result: outcome.value };
    console.error(`maintenance job ${name} failed:`, outcome.reason);
    return { name, ok: false, error: String(outcome.reason) };
  });
}

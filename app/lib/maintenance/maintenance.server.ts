import { loadFormCatalog } from "~/lib/forms/catalog.server";
import { resealSettings } from "~/lib/forms/reseal.server";
import type { Settings } from "~/lib/settings/settings.server";
import { drainOutbox } from "~/lib/delivery/drain.server";
import { dispatchDue, type DeliveryMessage } from "~/lib/delivery/queue.server";
import type { Mailer } from "~/lib/delivery/mailer.server";
import { budgetFor, type InvocationBudget, type Plan } from "~/lib/platform/budget.server";
import { pruneConfirmationSlots } from "~/lib/delivery/confirmation.server";
import { pruneRateLimits } from "~/lib/storage/rate-limits.server";
import { applyRetention } from "~/lib/storage/retention.server";
import { backfillSubmissions } from "~/lib/storage/backfill.server";
import { sweepOrphanedFiles } from "~/lib/uploads/orphan-sweep.server";
import { tendExports } from "~/lib/exports/run.server";

// The jobs the Worker's cron runs every minute (functions/scheduled.ts).

/** `mailer` null: e-mail is held; `bucket` null: the Worker has no UPLOADS binding. */
export interface MaintenanceContext {
  db: D1Database;
  bucket: R2Bucket | null;
  settings: Settings;
  mailer: Mailer | null;
  now: () => number;
  /** The run's one allowance, shared by every job (default: cronBudget(settings.plan)). */
  budget?: InvocationBudget;
  /** The DELIVERY_QUEUE binding, when the Worker has one: due deliveries are handed to it. */
  queue?: Queue<DeliveryMessage> | null;
}

export interface MaintenanceJob {
  name: string;
  run(context: MaintenanceContext): Promise<unknown>;
}

export type JobResult = { name: string; ok: true; result: unknown } | { name: string; ok: false; error: string };

/**
 * What the jobs that do not loop may spend in one run, kept back from the looping ones (the drain):
 * the limit windows (2 D1), the catalog and retention (4), reseal (2), search texts (2) and the
 * orphan sweep (2 D1, an R2 list and a delete), so a tick's jobs together stay within the plan.
 */
export const FIXED_JOBS_COST = { d1Queries: 12, subrequests: 2 } as const;

/** One cron run's allowance on `plan`, with FIXED_JOBS_COST (and two D1 calls of slack) kept back. */
export function cronBudget(plan: Plan): InvocationBudget {
  return budgetFor(plan, { d1Queries: FIXED_JOBS_COST.d1Queries + 2, subrequests: FIXED_JOBS_COST.subrequests });
}

/** Per run: at most this many deliveries (fewer where the plan's budget ends first, docs/decisions/070), and no new claims after this long (runs may overlap safely). */
export const DRAIN_LIMIT = 500;
export const DRAIN_BUDGET_MS = 45_000;

export const MAINTENANCE_JOBS: MaintenanceJob[] = [
  {
    name: "drain-outbox",
    run: async ({ db, settings, mailer, now, budget, queue }) => {
      const options = { limit: DRAIN_LIMIT, budgetMs: DRAIN_BUDGET_MS, mailer, now, budget };
      if (!queue || !budget) return drainOutbox(db, settings, options);
      // With the delivery queue, the cron only hands due rows to it (and probes paused destinations);
      // if the queue refuses, it drains the rest itself as without one (docs/decisions/070).
      const dispatch = await dispatchDue(db, queue, { nowMs: now(), budget });
      const drained = await drainOutbox(db, settings, { ...options, probesOnly: !dispatch.refused });
      return { ...drained, dispatched: dispatch.dispatched };
    },
  },
  // Every fixed-window limit: the rate-limit windows and the confirmation e-mails' slots.
  {
    name: "prune-rate-limits",
    run: async ({ db, now, budget = budgetFor("free") }) => {
      const windows = await pruneRateLimits(db, now(), budget);
      await pruneConfirmationSlots(db, now(), budget);
      return windows;
    },
  },
  // Each form's retentionDays (docs/decisions/005-retention-and-deletion.md), console forms (archived
  // ones too) beside the files; their uploaded files go with them. Without D1 the job fails like the
  // others and runs again next minute.
  {
    name: "apply-retention",
    run: async ({ db, bucket, settings, now, budget = budgetFor("free") }) => {
      const catalog = await loadFormCatalog({ db, encryptionKeys: settings.encryptionKeys, nowMs: now() });
      if (catalog.incomplete) throw new Error("the form catalog could not be read");
      return applyRetention(
        db,
        bucket,
        [...catalog.forms.values()].map((live) => live.form),
        now(),
        budget,
      );
    },
  },
  // Console settings sealed with an older SETTINGS_ENCRYPTION_KEY, sealed again with the first (rotation).
  { name: "reseal-settings", run: ({ db, settings }) => resealSettings(db, settings.encryptionKeys) },
  // Rows stored before migration 0021 (and 0010): state, counts and search index, a few chunks a run
  // (docs/decisions/060); one indexed read that finds nothing once every row has moved.
  { name: "backfill-submissions", run: ({ db, budget = budgetFor("free") }) => backfillSubmissions(db, budget) },
  // Uploaded files whose submission was never stored (docs/decisions/052): one D1 read and one R2
  // list per run while nothing new was uploaded.
  { name: "sweep-orphaned-files", run: ({ db, bucket, now, budget }) => sweepOrphanedFiles(db, bucket, now(), { budget }) },
  // Export jobs (docs/decisions/085): the oldest unfinished one carried on, those a day old deleted.
  { name: "tend-exports", run: ({ db, bucket, settings, now }) => tendExports({ db, bucket, plan: settings.plan, nowMs: now() }) },
];

/** Runs every job side by side; a failing job is logged and never stops the others. */
export async function runMaintenance(given: MaintenanceContext, jobs = MAINTENANCE_JOBS): Promise<JobResult[]> {
  const context = { ...given, budget: given.budget ?? cronBudget(given.settings.plan) };
  const settled = await Promise.allSettled(jobs.map((job) => job.run(context)));
  return settled.map((outcome, i): JobResult => {
    const name = jobs[i].name;
    if (outcome.status === "fulfilled") return { name, ok: true, result: outcome.value };
    console.error(`maintenance job ${name} failed:`, outcome.reason);
    return { name, ok: false, error: String(outcome.reason) };
  });
}

import { loadFormCatalog } from "~/lib/forms/catalog.server";
import { resealSettings } from "~/lib/forms/reseal.server";
import type { Settings } from "~/lib/settings/settings.server";
import { drainOutbox } from "~/lib/delivery/drain.server";
import type { Mailer } from "~/lib/delivery/mailer.server";
import { pruneConfirmationSlots } from "~/lib/delivery/confirmation.server";
import { pruneRateLimits } from "~/lib/storage/rate-limits.server";
import { applyRetention } from "~/lib/storage/retention.server";
import { budgetFor, type InvocationBudget } from "~/lib/platform/budget.server";
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
  /** The invocation's allowance the looping jobs spend from (default: the free plan's, made per run). */
  budget?: InvocationBudget;
}

export interface MaintenanceJob {
  name: string;
  run(context: MaintenanceContext): Promise<unknown>;
}

export type JobResult = { name: string; ok: true; result: unknown } | { name: string; ok: false; error: string };

/** Per run: at most this many deliveries, and no new claims after this long (runs may overlap safely). */
export const DRAIN_LIMIT = 500;
export const DRAIN_BUDGET_MS = 45_000;

export const MAINTENANCE_JOBS: MaintenanceJob[] = [
  {
    name: "drain-outbox",
    run: ({ db, settings, mailer, now }) => drainOutbox(db, settings, { limit: DRAIN_LIMIT, budgetMs: DRAIN_BUDGET_MS, mailer, now }),
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
export async function runMaintenance(context: MaintenanceContext, jobs = MAINTENANCE_JOBS): Promise<JobResult[]> {
  const budget = context.budget ?? budgetFor("free");
  const settled = await Promise.allSettled(jobs.map((job) => job.run({ ...context, budget })));
  return settled.map((outcome, i): JobResult => {
    const name = jobs[i].name;
    if (outcome.status === "fulfilled") return { name, ok: true, result: outcome.value };
    console.error(`maintenance job ${name} failed:`, outcome.reason);
    return { name, ok: false, error: String(outcome.reason) };
  });
}

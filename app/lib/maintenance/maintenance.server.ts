import { loadFormCatalog } from "~/lib/forms/catalog.server";
import { resealSettings } from "~/lib/forms/reseal.server";
import type { Settings } from "~/lib/settings/settings.server";
import { drainOutbox } from "~/lib/delivery/drain.server";
import { dispatchDue, type DeliveryMessage } from "~/lib/delivery/queue.server";
import type { Mailer } from "~/lib/sending/mailer.server";
import { budgetFor, type Cost, type InvocationBudget, type Plan } from "~/lib/platform/budget.server";
import { staleKindRows } from "~/lib/destinations/gates.server";
import { staleRateLimits } from "~/lib/storage/rate-limits.server";
import { pruneInChunks } from "~/lib/storage/sql.server";
import { applyRetention, RETENTION_CHUNK_COST } from "~/lib/storage/retention.server";
import { backfillSubmissions } from "~/lib/storage/backfill.server";
import { indexPendingSubmissions } from "~/lib/storage/search-index.server";
import { ORPHAN_SWEEP_CURSOR, sweepOrphanedFiles } from "~/lib/uploads/orphan-sweep.server";
import { EXPORT_TTL_MS, tendExports } from "~/lib/exports/run.server";
import type { ExportMessage } from "~/lib/exports/queue.server";
import { readMaintenanceDue, scheduleNextRuns, type MaintenanceDue } from "~/lib/storage/maintenance-due.server";

// The jobs the Worker's cron runs every minute. A run begins with one read that says which have work (ADR 095),
// so an idle minute costs that read and the Free plan's D1 calls go to deliveries that are due.

/** `mailer` null: e-mail is held; `bucket` null: the Worker has no UPLOADS binding. */
export interface MaintenanceContext {
  db: D1Database;
  bucket: R2Bucket | null;
  settings: Settings;
  mailer: Mailer | null;
  now: () => number;
  /** The run's one allowance, shared by every job (default: cronBudget(settings.plan)). */
  budget?: InvocationBudget;
  queue?: Queue<DeliveryMessage> | null;
  exportQueue?: Queue<ExportMessage> | null;
  /** The jobs' kept cursors (MaintenanceJob.cursor) as the run's first read found them; absent: not read. */
  cursors?: ReadonlyMap<string, string>;
}

/** Every run, when the first read says it has `work`, or every CADENCE_MINUTES at `offset` (again next run while `more`). */
export type JobWhen =
  { every: "run" } | { work: keyof Omit<MaintenanceDue, "waiting"> } | { cadence: number; more?: (result: unknown) => boolean };

export interface MaintenanceJob {
  name: string;
  when?: JobWhen;
  cursor?: string;
  /** What it spends, kept back from the drain (whose deliveries take whatever is left). */
  reserve?: Required<Cost>;
  run(context: MaintenanceContext): Promise<unknown>;
}

export type JobResult = { name: string; ok: true; result: unknown } | { name: string; ok: false; error: string };

/** A job on a cadence runs once every this many minutes, each at its own minute of the ten. */
export const CADENCE_MINUTES = 10;
const DUE_READ = { d1Queries: 1 } as const satisfies Cost;
const SLACK = { d1Queries: 2, subrequests: 0 } as const;

/** The next run of a cadence job at minute `offset` of every CADENCE_MINUTES, strictly after `nowMs`. */
export function nextCadenceRun(nowMs: number, offset: number): number {
  const minute = Math.floor(nowMs / 60_000);
  const step = (((offset - minute) % CADENCE_MINUTES) + CADENCE_MINUTES) % CADENCE_MINUTES || CADENCE_MINUTES;
  return (minute + step) * 60_000;
}

/** One cron run's allowance on `plan`, with what `jobs` (the ones that run) spend kept back. */
export function cronBudget(plan: Plan, jobs: readonly MaintenanceJob[] = []): InvocationBudget {
  const reserve = { ...SLACK };
  for (const job of jobs) {
    reserve.d1Queries += job.reserve?.d1Queries ?? 0;
    reserve.subrequests += job.reserve?.subrequests ?? 0;
  }
  // Writing the cadence jobs' next runs: one statement each, in one batch.
  reserve.d1Queries += jobs.filter((job) => job.when && "cadence" in job.when).length;
  return budgetFor(plan, reserve);
}

/** Per run: at most this many deliveries (fewer where the plan's budget ends first, docs/decisions/070), and no new claims after this long (runs may overlap safely). */
export const DRAIN_LIMIT = 500;
export const DRAIN_BUDGET_MS = 45_000;

export const MAINTENANCE_JOBS: MaintenanceJob[] = [
  {
    name: "drain-outbox",
    when: { work: "deliveries" },
    run: async ({ db, settings, mailer, now, budget, queue }) => {
      const options = { limit: DRAIN_LIMIT, budgetMs: DRAIN_BUDGET_MS, mailer, now, budget };
      if (!queue || !budget) return drainOutbox(db, settings, options);
      // With the queue, the cron only hands it due rows; if the queue refuses, it drains the rest itself (ADR 070).
      const dispatch = await dispatchDue(db, queue, { nowMs: now(), budget });
      const drained = await drainOutbox(db, settings, { ...options, probesOnly: !dispatch.refused });
      return { ...drained, dispatched: dispatch.dispatched };
    },
  },
  {
    name: "prune-rate-limits",
    when: { cadence: 0, more: (result) => (result as { more: boolean }).more },
    reserve: { d1Queries: 2, subrequests: 0 },
    run: async ({ db, now, budget = budgetFor("free") }) => {
      const pruned = await pruneInChunks(db, [staleRateLimits(now()), ...staleKindRows(now())], budget);
      return { deleted: pruned.reduce((sum, one) => sum + one.deleted, 0), more: pruned.some((one) => one.more) };
    },
  },
  // ADR 005; console forms (archived ones too) beside the files, their uploaded files with them.
  {
    name: "apply-retention",
    when: { cadence: 2, more: (result) => (result as { more?: boolean }[]).some((form) => form.more) },
    reserve: RETENTION_CHUNK_COST,
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
  {
    name: "reseal-settings",
    when: { cadence: 4, more: (result) => (result as { resealed: number }).resealed > 0 },
    reserve: { d1Queries: 2, subrequests: 0 },
    run: ({ db, settings }) => resealSettings(db, settings.encryptionKeys),
  },
  // Rows stored before migration 0021, a few chunks a run (ADR 060).
  {
    name: "backfill-submissions",
    when: { work: "unmoved" },
    reserve: { d1Queries: 2, subrequests: 0 },
    run: ({ db, budget = budgetFor("free") }) => backfillSubmissions(db, budget),
  },
  // New submissions into the search index (ADR 101); search and erase read the rest the old way meanwhile.
  {
    name: "index-search",
    when: { work: "unindexed" },
    reserve: { d1Queries: 2, subrequests: 0 },
    run: ({ db, budget = budgetFor("free") }) => indexPendingSubmissions(db, budget),
  },
  // ADR 052: one D1 read and one R2 list per run while nothing new was uploaded.
  {
    name: "sweep-orphaned-files",
    when: { cadence: 6 },
    cursor: ORPHAN_SWEEP_CURSOR,
    reserve: { d1Queries: 2, subrequests: 2 },
    run: ({ db, bucket, now, budget, cursors }) =>
      sweepOrphanedFiles(db, bucket, now(), { budget, cursor: cursors ? (cursors.get(ORPHAN_SWEEP_CURSOR) ?? null) : undefined }),
  },
  // ADR 085, 109: the oldest unfinished export carried on, those a day old deleted.
  {
    name: "tend-exports",
    when: { work: "exports" },
    reserve: { d1Queries: 10, subrequests: 10 },
    run: ({ db, bucket, settings, now, exportQueue }) => tendExports({ db, bucket, plan: settings.plan, nowMs: now(), queue: exportQueue }),
  },
];

/** Which of `jobs` have work this run, from `due` (the run's first read). */
export function jobsDue(jobs: readonly MaintenanceJob[], due: MaintenanceDue): MaintenanceJob[] {
  return jobs.filter((job) => {
    const when = job.when ?? { every: "run" };
    if ("work" in when) return due[when.work];
    if ("cadence" in when) return !due.waiting.has(job.name);
    return true;
  });
}

/** Runs the jobs that have work side by side; a failing job is logged and never stops the others. */
export async function runMaintenance(given: MaintenanceContext, jobs = MAINTENANCE_JOBS): Promise<JobResult[]> {
  const nowMs = given.now();
  let due: MaintenanceDue;
  try {
    due = await readMaintenanceDue(given.db, {
      nowMs,
      exportsExpireBeforeMs: nowMs - EXPORT_TTL_MS,
      cursors: jobs.flatMap((job) => job.cursor ?? []),
    });
  } catch (error) {
    console.error("maintenance could not read what is due:", error);
    return jobs.map((job) => ({ name: job.name, ok: false, error: String(error) }));
  }
  const running = jobsDue(jobs, due);
  const budget = given.budget ?? cronBudget(given.settings.plan, running);
  budget.spend(DUE_READ);
  const context = { ...given, budget, cursors: due.cursors };
  const settled = await Promise.allSettled(running.map((job) => job.run(context)));
  const results = settled.map((outcome, i): JobResult => {
    const name = running[i].name;
    if (outcome.status === "fulfilled") return { name, ok: true, result: outcome.value };
    console.error(`maintenance job ${name} failed:`, outcome.reason);
    return { name, ok: false, error: String(outcome.reason) };
  });
  // A cadence job that finished waits for its next minute; one that failed or left more runs again next time.
  const next = running.flatMap((job, i) => {
    const when = job.when;
    if (!when || !("cadence" in when)) return [];
    const outcome = settled[i];
    const again = outcome.status === "rejected" || (when.more?.(outcome.value) ?? false);
    return again ? [] : [{ job: job.name, atMs: nextCadenceRun(nowMs, when.cadence) }];
  });
  try {
    await scheduleNextRuns(given.db, next);
  } catch (error) {
    console.error("maintenance could not record its next runs:", error);
  }
  return results;
}

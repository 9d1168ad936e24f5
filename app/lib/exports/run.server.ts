import { advanceExport, chunkKey, EXPORT_LIMITS, exportFileKey, type ExportLimits } from "~/lib/exports/job.server";
import { InvocationBudget, PLANS, type Plan } from "~/lib/platform/budget.server";
import {
  deleteExportJob,
  findExportJob,
  findUnfinishedExportJob,
  leaseExportJob,
  listExpiredExportJobs,
  saveExportJob,
  type ExportJob,
} from "~/lib/storage/export-jobs.server";

// Running export jobs (docs/decisions/085): a request or a cron tick leases a job, carries it on within
// its budget and saves where it got to; the cron also deletes jobs a day old with their objects.

/** A poll's lease on a job: longer than any one invocation's work. */
const LEASE_MS = 60_000;
/** Files and their jobs are deleted a day after they were asked for. */
export const EXPORT_TTL_MS = 86_400_000;

/**
 * Works on the job within `budget` and saves where it got to; returns it as it now stands. A job another
 * invocation holds is returned as stored, untouched. D1 and R2 errors throw (the lease lapses).
 */
export async function workOnExport(
  { db, bucket }: { db: D1Database; bucket: R2Bucket },
  id: string,
  budget: InvocationBudget,
  nowMs: number,
  limits: ExportLimits,
): Promise<ExportJob | null> {
  if (!budget.trySpend({ d1Queries: 1 })) return findExportJob(db, id);
  const job = await leaseExportJob(db, id, nowMs, nowMs + LEASE_MS);
  if (!job) return findExportJob(db, id);
  if (job.state.phase === "ready") {
    await saveExportJob(db, job, nowMs);
    return job;
  }
  const state = await advanceExport({ db, bucket }, job, budget, limits);
  const done = { ...job, state };
  await saveExportJob(db, done, nowMs);
  return done;
}

/** The limits of `plan`'s exports. */
export function exportLimits(plan: Plan): ExportLimits {
  return EXPORT_LIMITS[plan];
}

/**
 * The cron's share: carries on the oldest unfinished job, and deletes jobs (with their objects) older
 * than a day, within a fifth of the invocation's budget (the other jobs run beside it). Errors throw.
 */
export async function tendExports({
  db,
  bucket,
  plan,
  nowMs,
  limits = EXPORT_LIMITS[plan],
}: {
  db: D1Database;
  bucket: R2Bucket | null;
  plan: Plan;
  nowMs: number;
  limits?: ExportLimits;
}): Promise<{ advanced: string | null; deleted: number }> {
  if (!bucket) return { advanced: null, deleted: 0 };
  const share = PLANS[plan];
  const budget = new InvocationBudget({
    ...share,
    d1Queries: Math.floor(share.d1Queries / 5),
    subrequests: Math.floor(share.subrequests / 5),
  });
  let deleted = 0;
  for (const job of await listExpiredExportJobs(db, nowMs - EXPORT_TTL_MS, 2)) {
    const keys = [exportFileKey(job.id), ...job.state.chunks.map((_, i) => chunkKey(job.id, i))];
    if (!budget.trySpend({ d1Queries: 1, subrequests: Math.ceil(keys.length / 1000) + (job.state.uploadId ? 1 : 0) })) break;
    if (job.state.uploadId && job.state.phase !== "ready") {
      await bucket.resumeMultipartUpload(exportFileKey(job.id), job.state.uploadId).abort();
    }
    for (let i = 0; i < keys.length; i += 1000) await bucket.delete(keys.slice(i, i + 1000));
    await deleteExportJob(db, job.id);
    deleted += 1;
  }
  budget.spend({ d1Queries: 1 });
  const next = await findUnfinishedExportJob(db, nowMs);
  if (next) await workOnExport({ db, bucket }, next, budget, nowMs, limits);
  return { advanced: next, deleted };
}

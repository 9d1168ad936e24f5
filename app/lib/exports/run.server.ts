import { advanceExport, chunkKey, EXPORT_LIMITS, exportFileKey, type ExportLimits } from "~/lib/exports/job.server";
import { budgetFor, InvocationBudget, PLANS, type Plan } from "~/lib/platform/budget.server";
import { ExportMessageSchema, sendExportStep, type ExportMessage } from "~/lib/exports/queue.server";
import {
  deleteExportJob,
  findExportJob,
  findUnfinishedExportJob,
  leaseExportJob,
  listExpiredExportJobs,
  saveExportJob,
  type ExportJob,
} from "~/lib/storage/export-jobs.server";

// Running export jobs (ADR 085, 109): a queue message or a cron tick leases a job, carries it on within its
// budget and saves where it got to.

const LEASE_MS = 60_000;
/** Files and their jobs are deleted a day after they were asked for. */
export const EXPORT_TTL_MS = 86_400_000;

/** Works on the job within `budget`, unless another invocation holds it; returns it as it now stands. D1 and R2 errors throw. */
export async function workOnExport(
  { db, bucket }: { db: D1Database; bucket: R2Bucket },
  id: string,
  budget: InvocationBudget,
  nowMs: number,
  limits: ExportLimits,
): Promise<{ job: ExportJob | null; worked: boolean }> {
  if (!budget.trySpend({ d1Queries: 1 })) return { job: await findExportJob(db, id), worked: false };
  const job = await leaseExportJob(db, id, nowMs, nowMs + LEASE_MS);
  if (!job) return { job: await findExportJob(db, id), worked: false };
  if (job.state.phase === "ready") {
    await saveExportJob(db, job, nowMs);
    return { job, worked: true };
  }
  const state = await advanceExport({ db, bucket }, job, budget, limits);
  if (state.phase !== job.state.phase) state.phaseFrom = nowMs;
  const done = { ...job, state };
  await saveExportJob(db, done, nowMs);
  return { job: done, worked: true };
}

/** The limits of `plan`'s exports. */
export function exportLimits(plan: Plan): ExportLimits {
  return EXPORT_LIMITS[plan];
}

export const EXPORT_IDLE_MS = 30_000;

/** The cron's share, within a fifth of the budget: deletes day-old jobs, carries on the oldest (by message with the queue). Errors throw. */
export async function tendExports({
  db,
  bucket,
  plan,
  nowMs,
  limits = EXPORT_LIMITS[plan],
  queue = null,
}: {
  db: D1Database;
  bucket: R2Bucket | null;
  plan: Plan;
  nowMs: number;
  limits?: ExportLimits;
  queue?: Queue<ExportMessage> | null;
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
  const next = await findUnfinishedExportJob(db, nowMs, queue ? nowMs - EXPORT_IDLE_MS : nowMs);
  if (next && !(await sendExportStep(queue, next))) await workOnExport({ db, bucket }, next, budget, nowMs, limits);
  return { advanced: next, deleted };
}

/** Kept back from the step: the next message's send, and saving the job. */
const STEP_RESERVE = { d1Queries: 2, subrequests: 1 } as const;

export interface ExportQueueContext {
  db: D1Database;
  bucket: R2Bucket | null;
  queue: Queue<ExportMessage> | null;
  plan: Plan;
  nowMs: number;
}

/** One step of the first message's job, then the next message; the batch's others are retried. D1 and R2 errors throw. */
export async function consumeExportBatch(
  batch: MessageBatch<unknown>,
  ctx: ExportQueueContext,
): Promise<{ job: string | null; rows: number | null }> {
  const [first, ...rest] = batch.messages;
  for (const message of rest) message.retry();
  if (!first) return { job: null, rows: null };
  const body = ExportMessageSchema.safeParse(first.body);
  if (!body.success || !ctx.bucket) {
    first.ack();
    return { job: null, rows: null };
  }
  const id = body.data.exportJob;
  const budget = budgetFor(ctx.plan, STEP_RESERVE);
  const { job, worked } = await workOnExport({ db: ctx.db, bucket: ctx.bucket }, id, budget, ctx.nowMs, exportLimits(ctx.plan));
  if (worked && job && job.state.phase !== "ready") await sendExportStep(ctx.queue, id);
  first.ack();
  return { job: id, rows: job?.state.rows ?? null };
}

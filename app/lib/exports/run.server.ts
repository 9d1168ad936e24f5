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

// Running export jobs (docs/decisions/085, 109): a queue message or a cron tick leases a job, carries it
// on within its budget and saves where it got to; the cron also deletes jobs a day old with their objects.

/** An invocation's lease on a job: longer than any one invocation's work. */
const LEASE_MS = 60_000;
/** Files and their jobs are deleted a day after they were asked for. */
export const EXPORT_TTL_MS = 86_400_000;

/**
 * Works on the job within `budget` and saves where it got to; returns it as it now stands (`worked`:
 * this invocation held it). A job another invocation holds is returned as stored, untouched. D1 and R2
 * errors throw (the lease lapses).
 */
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

/** With the export queue, a job untouched this long has lost its messages: the cron sends it one again. */
export const EXPORT_IDLE_MS = 30_000;

/**
 * The cron's share: deletes jobs (with their objects) older than a day, and carries on the oldest
 * unfinished job: with the queue, one idle for EXPORT_IDLE_MS gets a message (or, refused, a step
 * here); without, the oldest gets a step here. Within a fifth of the invocation's budget (the other
 * jobs run beside it). Errors throw.
 */
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

/**
 * One step of the first message's job within the invocation's budget, then the next message. A job
 * another invocation holds is left to it (a second chain of messages would only double the work). The
 * batch's other messages are retried: each step wants a whole invocation. D1 and R2 errors throw (the
 * queue retries the message).
 */
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

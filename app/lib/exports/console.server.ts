import type { AdminUser } from "~/lib/auth/admin-user.server";
import type { ExportParams } from "~/lib/exports/params.server";
import { sha256Hex } from "~/lib/crypto/digest";
import { EXPORT_PART_SIZE, exportFileKey, initialExportState } from "~/lib/exports/job.server";
import { auditStatement } from "~/lib/storage/audit-log.server";
import { findExportJob, insertExportJobStatement, type ExportJob } from "~/lib/storage/export-jobs.server";
import { TokenSchema } from "~/lib/console/input.server";
import { runBatch } from "~/lib/storage/sql.server";

// Exports as jobs (docs/decisions/085, 109): GET /admin/export starts one (audited) and hands it to the
// export queue, which carries it on without any page; the cron takes over a job the queue lost. The
// job's address only reads it: 202 with its progress until the file is ready, then the file. Only the
// session or token that asked may read it, and a person has at most EXPORT_JOBS_PER_PERSON running.

/** Seconds a script waits before polling again. */
export const POLL_SECONDS = 2;
/** Unfinished export jobs one identity may have at once (a day-old job is deleted, finished or not). */
export const EXPORT_JOBS_PER_PERSON = 3;

export interface ExportRequest {
  db: D1Database;
  user: AdminUser;
  request: Request;
  nowMs: number;
}

/**
 * Who may read a job: the password session that asked (every password admin shares one identity, so
 * the session's id, as a digest), else the token or Access identity. Never throws.
 */
export async function exportOwner(user: AdminUser): Promise<string> {
  return user.sessionId ? `session:${await sha256Hex(user.sessionId)}` : user.id;
}

/**
 * A new job for `params` (formId null: every form), its audit row in the same batch; null when the
 * person already has EXPORT_JOBS_PER_PERSON running (nothing written). D1 errors throw.
 */
export async function startExport(
  { db, user, request, nowMs }: ExportRequest,
  params: Pick<ExportParams, "from" | "to" | "format"> & { formId: string | null },
  defined: readonly string[],
): Promise<ExportJob | null> {
  const job: ExportJob = {
    id: crypto.randomUUID(),
    requestedBy: user.id,
    owner: await exportOwner(user),
    formId: params.formId,
    format: params.format,
    from: params.from ?? null,
    to: params.to ?? null,
    state: initialExportState(defined),
    createdAt: nowMs,
  };
  const detail = { format: job.format, from: job.from, to: job.to, job: job.id };
  const { job: inserted } = await runBatch(db, {
    job: insertExportJobStatement(db, job, EXPORT_JOBS_PER_PERSON),
    audit: auditStatement(db, { user, request, action: "export", target: job.formId ?? "*", detail, nowMs, ifChanged: true }),
  });
  return inserted.meta.changes > 0 ? job : null;
}

/** The job `id` names when `user`'s session or token asked for it, else null (someone else's job is as good as none). D1 errors throw. */
export async function findOwnExport(db: D1Database, user: AdminUser, id: string | undefined): Promise<ExportJob | null> {
  const parsed = TokenSchema.safeParse(id);
  const job = parsed.success ? await findExportJob(db, parsed.data) : null;
  return job && job.owner === (await exportOwner(user)) ? job : null;
}

/** The job's own page in the console (progress, then the download). */
export function exportPagePath(job: Pick<ExportJob, "id">): string {
  return `/admin/exports/${job.id}`;
}

/** The job's data address: its progress (202) for scripts, then the file. */
export function exportDataPath(job: Pick<ExportJob, "id">): string {
  return `/admin/export/${job.id}`;
}

/** The file's name as the download offers it. */
export function exportFileName(job: ExportJob): string {
  return `gatepost-${job.formId ?? "all-forms"}-${job.from ?? "start"}-to-${job.to ?? "now"}.${job.format}`;
}

/** The finished file, streamed from R2 as an attachment; null when it is gone. R2 errors throw. */
export async function exportFileResponse(bucket: R2Bucket, job: ExportJob): Promise<Response | null> {
  const object = await bucket.get(exportFileKey(job.id));
  if (!object) return null;
  return new Response(object.body, {
    headers: {
      "Content-Type": job.format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="${exportFileName(job)}"`,
      "Content-Length": String(object.size),
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}

/** How far a job has got, and a guess at the time left from its pace so far. Pure. */
export interface ExportProgress {
  id: string;
  phase: ExportJob["state"]["phase"];
  rows: number;
  /** Rows counted once the keys phase is over (0 before); rows stored meanwhile may pass it. */
  total: number;
  /** Seconds left at the pace of the phase so far; null while counting or just begun. */
  secondsLeft: number | null;
}

/** The progress of `job` at `nowMs`. Pure. */
export function exportProgress(job: ExportJob, nowMs: number): ExportProgress {
  const { state } = job;
  const elapsed = Math.max(0, nowMs - (state.phaseFrom || job.createdAt)) / 1000;
  const parts = Math.max(1, Math.ceil(state.bytes / EXPORT_PART_SIZE));
  let secondsLeft: number | null = null;
  if (state.phase === "rows" && state.rows > 0) secondsLeft = (elapsed * Math.max(0, state.total - state.rows)) / state.rows;
  if (state.phase === "compose" && state.parts.length > 0) secondsLeft = (elapsed * (parts - state.parts.length)) / state.parts.length;
  if (state.phase === "ready") secondsLeft = 0;
  return {
    id: job.id,
    phase: state.phase,
    rows: state.rows,
    total: state.phase === "keys" ? 0 : Math.max(state.total, state.rows),
    secondsLeft: secondsLeft === null ? null : Math.ceil(secondsLeft),
  };
}

/**
 * A job not ready yet: a browser goes to its page in the console; a script gets 202, its progress as
 * JSON and the data address to poll (`Location`, `Retry-After`).
 */
export function pendingExportResponse(job: ExportJob, request: Request, nowMs: number): Response {
  const noStore = { "Cache-Control": "private, no-store", "X-Content-Type-Options": "nosniff" };
  if ((request.headers.get("accept") ?? "").includes("text/html")) {
    return new Response(null, { status: 303, headers: { ...noStore, Location: `${exportPagePath(job)}?auto=1` } });
  }
  const headers = { ...noStore, Location: exportDataPath(job), "Retry-After": String(POLL_SECONDS) };
  return Response.json(exportProgress(job, nowMs), { status: 202, headers });
}

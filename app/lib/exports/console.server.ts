import type { AdminUser } from "~/lib/auth/admin-user.server";
import type { ExportParams } from "~/lib/exports/params.server";
import { sha256Hex } from "~/lib/crypto/digest";
import { EXPORT_PART_SIZE, exportFileKey, initialExportState } from "~/lib/exports/job.server";
import { auditStatement } from "~/lib/storage/audit-log.server";
import { findExportJob, insertExportJobStatement, type ExportJob } from "~/lib/storage/export-jobs.server";
import { TokenSchema } from "~/lib/console/input.server";
import { runBatch } from "~/lib/storage/sql.server";

// Exports as jobs (ADR 085, 109): GET /admin/export starts one, the export queue carries it on (the cron if it is
// lost), and the job's address answers 202 until the file is ready. Only whoever asked may read it.

export const POLL_SECONDS = 2;
export const EXPORT_JOBS_PER_PERSON = 3;

export interface ExportRequest {
  db: D1Database;
  user: AdminUser;
  request: Request;
  nowMs: number;
}

/** Who may read a job: the password session that asked (as a digest), else the token or Access identity. Never throws. */
export async function exportOwner(user: AdminUser): Promise<string> {
  return user.sessionId ? `session:${await sha256Hex(user.sessionId)}` : user.id;
}

/** A new job, audited in the same batch; null when the person has EXPORT_JOBS_PER_PERSON running. D1 errors throw. */
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
  total: number;
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

/** A job not ready: a browser goes to its console page, a script gets 202 with progress and `Location`, `Retry-After`. */
export function pendingExportResponse(job: ExportJob, request: Request, nowMs: number): Response {
  const noStore = { "Cache-Control": "private, no-store", "X-Content-Type-Options": "nosniff" };
  if ((request.headers.get("accept") ?? "").includes("text/html")) {
    return new Response(null, { status: 303, headers: { ...noStore, Location: `${exportPagePath(job)}?auto=1` } });
  }
  const headers = { ...noStore, Location: exportDataPath(job), "Retry-After": String(POLL_SECONDS) };
  return Response.json(exportProgress(job, nowMs), { status: 202, headers });
}

import type { AdminUser } from "~/lib/admin/auth.server";
import type { ExportParams } from "~/lib/admin/export-params.server";
import { exportFileKey, initialExportState } from "~/lib/exports/job.server";
import { budgetFor, type InvocationBudget, type Plan } from "~/lib/platform/budget.server";
import { auditStatement } from "~/lib/storage/audit-log.server";
import { insertExportJobStatement, type ExportJob } from "~/lib/storage/export-jobs.server";
import { runBatch } from "~/lib/storage/sql.server";

// Exports as jobs (docs/decisions/085): GET /admin/export starts one (audited) and works on it within
// its own budget; small exports are done by then and answered with the file. Otherwise it answers 202
// with the job's address, which works on it again at each poll and answers 202 until the file is
// ready; the cron carries unfinished jobs on too, so closing the tab does not stop one.

/** Seconds a client waits before polling again. */
export const POLL_SECONDS = 2;

export interface ExportRequest {
  db: D1Database;
  user: AdminUser;
  request: Request;
  nowMs: number;
}

/** A new job for `params` (formId null: every form), its audit row in the same batch. D1 errors throw. */
export async function startExport(
  { db, user, request, nowMs }: ExportRequest,
  params: Pick<ExportParams, "from" | "to" | "format"> & { formId: string | null },
  defined: readonly string[],
): Promise<ExportJob> {
  const job: ExportJob = {
    id: crypto.randomUUID(),
    requestedBy: user.id,
    formId: params.formId,
    format: params.format,
    from: params.from ?? null,
    to: params.to ?? null,
    state: initialExportState(defined),
    createdAt: nowMs,
  };
  const detail = { format: job.format, from: job.from, to: job.to, job: job.id };
  await runBatch(db, {
    job: insertExportJobStatement(db, job),
    audit: auditStatement(db, { user, request, action: "export", target: job.formId ?? "*", detail, nowMs }),
  });
  return job;
}

/** A request's budget on `plan`, less what signing in and starting the job spent (up to 5 queries). */
export function requestBudget(plan: Plan): InvocationBudget {
  const budget = budgetFor(plan);
  budget.spend({ d1Queries: 5 });
  return budget;
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

/**
 * 202 with the job's address to poll: JSON for scripts, else a page that refreshes itself there (the
 * console's button works without script). `Retry-After` says when.
 */
export function pendingExportResponse(job: ExportJob, request: Request): Response {
  const location = `/admin/export/${job.id}`;
  const headers = {
    Location: location,
    "Retry-After": String(POLL_SECONDS),
    "Cache-Control": "private, no-store",
    "X-Content-Type-Options": "nosniff",
  };
  const progress = { id: job.id, phase: job.state.phase, rows: job.state.rows };
  if (!(request.headers.get("accept") ?? "").includes("text/html")) return Response.json(progress, { status: 202, headers });
  const rows = job.state.rows.toLocaleString("en");
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><meta http-equiv="refresh" content="${POLL_SECONDS};url=${location}"><title>Preparing your export</title></head><body><main><h1>Preparing your export</h1><p role="status">${rows} rows so far (${job.state.phase}). The download starts by itself when the file is ready.</p></main></body></html>`;
  return new Response(html, { status: 202, headers: { ...headers, "Content-Type": "text/html; charset=utf-8" } });
}

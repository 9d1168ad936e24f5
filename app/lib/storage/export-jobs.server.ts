import sql from "sql-template-tag";
import { z } from "zod";
import { parseRows, statement } from "~/lib/storage/sql.server";

// The export_jobs table (ADR 085, 109): a job's request, who may see it, and its progress as JSON.

export const ExportStateSchema = z.object({
  phase: z.enum(["keys", "rows", "compose", "ready"]),
  cursor: z.object({ receivedAt: z.string(), id: z.string() }).nullable(),
  defined: z.array(z.string()),
  extra: z.array(z.string()),
  rows: z.number().int(),
  total: z.number().int().default(0),
  phaseFrom: z.number().default(0),
  chunks: z.array(z.number().int()),
  composed: z.object({ chunk: z.number().int(), offset: z.number().int() }),
  uploadId: z.string().nullable(),
  parts: z.array(z.object({ partNumber: z.number().int(), etag: z.string() })),
  bytes: z.number().int(),
});
export type ExportState = z.infer<typeof ExportStateSchema>;

const JobRowSchema = z.object({
  id: z.string(),
  requested_by: z.string(),
  owner: z.string(),
  form_id: z.string().nullable(),
  format: z.enum(["csv", "json"]),
  range_from: z.string().nullable(),
  range_to: z.string().nullable(),
  state: z.string().transform((text) => ExportStateSchema.parse(JSON.parse(text))),
  created_at: z.number(),
  finished_at: z.number().nullable(),
});

export interface ExportJob {
  id: string;
  requestedBy: string;
  owner: string;
  formId: string | null;
  format: "csv" | "json";
  from: string | null;
  to: string | null;
  state: ExportState;
  createdAt: number;
}

function jobOf(row: z.infer<typeof JobRowSchema>): ExportJob {
  return {
    id: row.id,
    requestedBy: row.requested_by,
    owner: row.owner,
    formId: row.form_id,
    format: row.format,
    from: row.range_from,
    to: row.range_to,
    state: row.state,
    createdAt: row.created_at,
  };
}

/** The INSERT of a new job, only while its requester has fewer than `cap` unfinished; batch it with its audit row. Pure. */
export function insertExportJobStatement(db: D1Database, job: ExportJob, cap = Number.MAX_SAFE_INTEGER): D1PreparedStatement {
  return statement(
    db,
    sql`INSERT INTO export_jobs (id, requested_by, owner, form_id, format, range_from, range_to, state, created_at, updated_at)
      SELECT ${job.id}, ${job.requestedBy}, ${job.owner}, ${job.formId}, ${job.format}, ${job.from}, ${job.to}, ${JSON.stringify(job.state)},
        ${job.createdAt}, ${job.createdAt}
      WHERE (SELECT COUNT(*) FROM export_jobs INDEXED BY export_jobs_requester_running
        WHERE requested_by = ${job.requestedBy} AND finished_at IS NULL) < ${cap}`,
  );
}

/** The job, leased to the caller until `untilMs`, or null when there is none or another invocation holds it. D1 errors throw. */
export async function leaseExportJob(db: D1Database, id: string, nowMs: number, untilMs: number): Promise<ExportJob | null> {
  const { results } = await statement(
    db,
    sql`UPDATE export_jobs SET lease_until = ${untilMs} WHERE id = ${id} AND lease_until <= ${nowMs} RETURNING *`,
  ).all();
  const [row] = parseRows(JobRowSchema, results);
  return row ? jobOf(row) : null;
}

/** The job as stored (leased or not), or null. D1 errors throw. */
export async function findExportJob(db: D1Database, id: string): Promise<ExportJob | null> {
  const [row] = parseRows(JobRowSchema, (await statement(db, sql`SELECT * FROM export_jobs WHERE id = ${id}`).all()).results);
  return row ? jobOf(row) : null;
}

/** Stores the job's progress and frees its lease. D1 errors throw. */
export async function saveExportJob(db: D1Database, job: ExportJob, nowMs: number): Promise<void> {
  const finished = job.state.phase === "ready" ? nowMs : null;
  await statement(
    db,
    sql`UPDATE export_jobs SET state = ${JSON.stringify(job.state)}, updated_at = ${nowMs}, lease_until = 0, finished_at = ${finished}
      WHERE id = ${job.id}`,
  ).run();
}

const IdRowSchema = z.object({ id: z.string() });

/** The oldest unfinished job nobody holds and nothing touched since `idleSinceMs`, for the cron to carry on. D1 errors throw. */
export async function findUnfinishedExportJob(db: D1Database, nowMs: number, idleSinceMs = nowMs): Promise<string | null> {
  const row = await statement(
    db,
    sql`SELECT id FROM export_jobs WHERE finished_at IS NULL AND lease_until <= ${nowMs} AND updated_at <= ${idleSinceMs}
      ORDER BY updated_at LIMIT 1`,
  ).first();
  return row ? IdRowSchema.parse(row).id : null;
}

/** Up to `limit` jobs created before `beforeMs`, to delete with their objects. D1 errors throw. */
export async function listExpiredExportJobs(db: D1Database, beforeMs: number, limit: number): Promise<ExportJob[]> {
  const { results } = await statement(
    db,
    sql`SELECT * FROM export_jobs WHERE created_at < ${beforeMs} ORDER BY created_at LIMIT ${limit}`,
  ).all();
  return parseRows(JobRowSchema, results).map(jobOf);
}

/** D1 errors throw. */
export async function deleteExportJob(db: D1Database, id: string): Promise<void> {
  await statement(db, sql`DELETE FROM export_jobs WHERE id = ${id}`).run();
}

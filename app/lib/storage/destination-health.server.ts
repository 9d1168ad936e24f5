import sql from "sql-template-tag";
import { z } from "zod";
import { parseRows, statement } from "~/lib/storage/sql.server";

// A destination's run of failures and its pause (ADR 071), one row per form and kind, written only on failure.

/** The condition "this delivery's destination is paused", for statements on `deliveries`. */
export const PAUSED = sql`EXISTS (SELECT 1 FROM destination_health h
  WHERE h.form_id = deliveries.form_id AND h.destination = deliveries.destination AND h.paused_at IS NOT NULL)`;

const HealthRowSchema = z.object({
  form_id: z.string(),
  destination: z.string(),
  consecutive_failures: z.number(),
  last_error: z.string().nullable(),
  last_failure_at: z.number().nullable(),
  paused_at: z.number().nullable(),
  probe_at: z.number().nullable(),
  notified_at: z.number().nullable(),
});

export interface DestinationHealth {
  formId: string;
  destination: string;
  consecutiveFailures: number;
  lastError: string | null;
  lastFailureAt: number | null;
  pausedAt: number | null;
  probeAt: number | null;
  notifiedAt: number | null;
}

function toHealth(row: z.infer<typeof HealthRowSchema>): DestinationHealth {
  return {
    formId: row.form_id,
    destination: row.destination,
    consecutiveFailures: row.consecutive_failures,
    lastError: row.last_error,
    lastFailureAt: row.last_failure_at,
    pausedAt: row.paused_at,
    probeAt: row.probe_at,
    notifiedAt: row.notified_at,
  };
}

/** One more failure in a row; at `threshold` the destination pauses. RETURNING the row shows a pause it caused. Pure. */
export function recordFailureStatement(
  db: D1Database,
  {
    formId,
    destination,
    error,
    nowMs,
    threshold,
    probeMs,
  }: {
    formId: string;
    destination: string;
    error: string | null;
    nowMs: number;
    threshold: number;
    probeMs: number;
  },
): D1PreparedStatement {
  const pausesNow = threshold <= 1;
  return statement(
    db,
    sql`INSERT INTO destination_health (form_id, destination, consecutive_failures, last_error, last_failure_at, paused_at, probe_at)
      VALUES (${formId}, ${destination}, 1, ${error}, ${nowMs}, ${pausesNow ? nowMs : null}, ${pausesNow ? nowMs + probeMs : null})
      ON CONFLICT (form_id, destination) DO UPDATE SET
        consecutive_failures = consecutive_failures + 1,
        last_error = excluded.last_error,
        last_failure_at = excluded.last_failure_at,
        probe_at = CASE WHEN paused_at IS NULL AND consecutive_failures + 1 >= ${threshold} THEN ${nowMs + probeMs} ELSE probe_at END,
        paused_at = CASE WHEN paused_at IS NULL AND consecutive_failures + 1 >= ${threshold} THEN ${nowMs} ELSE paused_at END
      RETURNING *`,
  );
}

/** A success: the run of failures ends and any pause with it. Writes nothing for a healthy destination. Pure. */
export function recordSuccessStatement(db: D1Database, formId: string, destination: string): D1PreparedStatement {
  return statement(
    db,
    sql`UPDATE destination_health SET consecutive_failures = 0, paused_at = NULL, probe_at = NULL, notified_at = NULL
      WHERE form_id = ${formId} AND destination = ${destination} AND (consecutive_failures > 0 OR paused_at IS NOT NULL)`,
  );
}

/** Reads back what recordFailureStatement returned: the row, or null. */
export function healthOfResult(result: D1Result | undefined): DestinationHealth | null {
  const [row] = parseRows(HealthRowSchema, result?.results ?? []);
  return row ? toHealth(row) : null;
}

/** Resumes a paused destination (an admin's hand); changes nothing unless it was paused. Pure. */
export function resumeDestinationStatement(db: D1Database, formId: string, destination: string): D1PreparedStatement {
  return statement(
    db,
    sql`UPDATE destination_health SET consecutive_failures = 0, paused_at = NULL, probe_at = NULL, notified_at = NULL
      WHERE form_id = ${formId} AND destination = ${destination} AND paused_at IS NOT NULL`,
  );
}

/** Resumes a paused destination; true when it was paused. D1 errors throw. */
export async function resumeDestination(db: D1Database, formId: string, destination: string): Promise<boolean> {
  const result = await resumeDestinationStatement(db, formId, destination).run();
  return (result.meta.changes ?? 0) > 0;
}

/** Marks this pause as told to the owner; true only for the one caller that marked it. D1 errors throw. */
export async function claimPauseNotice(db: D1Database, formId: string, destination: string, nowMs: number): Promise<boolean> {
  const result = await statement(
    db,
    sql`UPDATE destination_health SET notified_at = ${nowMs}
      WHERE form_id = ${formId} AND destination = ${destination} AND paused_at IS NOT NULL AND notified_at IS NULL`,
  ).run();
  return (result.meta.changes ?? 0) > 0;
}

/** Every destination of `formId` with a failure on record (paused or not). D1 errors throw. */
export async function listDestinationHealth(db: D1Database, formId?: string): Promise<DestinationHealth[]> {
  const where = formId === undefined ? sql`WHERE consecutive_failures > 0 OR paused_at IS NOT NULL` : sql`WHERE form_id = ${formId}`;
  const { results } = await statement(db, sql`SELECT * FROM destination_health ${where} ORDER BY form_id, destination`).all();
  return parseRows(HealthRowSchema, results).map(toHealth);
}

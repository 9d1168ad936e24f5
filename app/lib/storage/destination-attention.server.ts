import sql from "sql-template-tag";
import { z } from "zod";
import { parseRows, statement } from "~/lib/storage/sql.server";

// What the console's dashboard and /healthz show about destinations that need a person: deliveries
// held on a missing or bad setting (still queued, waiting for the fix) and destinations that said they
// no longer exist (a deleted Slack or Discord webhook answering 404). Read from the outbox itself.

export interface DestinationAttention {
  formId: string;
  destination: string;
  /** Pending deliveries whose latest attempt found the settings missing or bad. */
  held: number;
  /** Dead deliveries whose last answer was 404/410. */
  gone: number;
  /** The latest reason, as logged (names variables, never their values). */
  reason: string | null;
}

const AttentionRowSchema = z.object({
  form_id: z.string(),
  destination: z.string(),
  held: z.number(),
  gone: z.number(),
  reason: z.string().nullable(),
});

/** Destinations with held or gone deliveries, by form and kind. Throws only if D1 fails. */
export async function readDestinationAttention(db: D1Database): Promise<DestinationAttention[]> {
  const query = sql`WITH latest AS (
      SELECT d.form_id, d.destination, d.status, d.last_error,
        (SELECT a.error FROM delivery_attempts a WHERE a.delivery_id = d.id ORDER BY a.id DESC LIMIT 1) AS error
      FROM deliveries d WHERE d.status IN ('pending', 'dead'))
    SELECT form_id, destination,
      SUM(status = 'pending' AND error = 'config') AS held,
      SUM(status = 'dead' AND error = 'gone') AS gone,
      MAX(CASE WHEN error IN ('config', 'gone') THEN last_error END) AS reason
    FROM latest GROUP BY form_id, destination
    HAVING held > 0 OR gone > 0
    ORDER BY form_id, destination`;
  const { results } = await statement(db, query).all();
  return parseRows(AttentionRowSchema, results).map((row) => ({
    formId: row.form_id,
    destination: row.destination,
    held: row.held,
    gone: row.gone,
    reason: row.reason,
  }));
}

import sql from "sql-template-tag";
import { z } from "zod";
import { parseRows, statement } from "~/lib/storage/sql.server";

// Destinations that need a person, for the dashboard and /healthz: deliveries held on a bad setting and
// destinations gone (404). Read from the newest ATTENTION_WINDOW flagging attempts only (ADR 060).

/** Flagging attempts looked at, newest first; the counts are of the deliveries they belong to. */
export const ATTENTION_WINDOW = 300;

export interface DestinationAttention {
  formId: string;
  destination: string;
  held: number;
  gone: number;
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
  // A delivery counts when its latest attempt is the flagging one: held while pending, gone when dead.
  // CROSS JOIN keeps the flagged attempts outermost (SQLite never reorders it), so no queued delivery is read.
  const query = sql`WITH flagged AS MATERIALIZED (
      SELECT a.id, a.delivery_id, a.error FROM delivery_attempts a INDEXED BY delivery_attempts_attention
      WHERE a.error IN ('config', 'gone') ORDER BY a.id DESC LIMIT ${ATTENTION_WINDOW})
    SELECT d.form_id, d.destination,
      SUM(d.status = 'pending' AND f.error = 'config') AS held,
      SUM(d.status = 'dead' AND f.error = 'gone') AS gone,
      MAX(d.last_error) AS reason
    FROM flagged f CROSS JOIN deliveries d ON d.id = f.delivery_id
    WHERE d.status IN ('pending', 'dead')
      AND f.id = (SELECT a2.id FROM delivery_attempts a2 WHERE a2.delivery_id = f.delivery_id ORDER BY a2.id DESC LIMIT 1)
    GROUP BY d.form_id, d.destination
    HAVING held > 0 OR gone > 0
    ORDER BY d.form_id, d.destination`;
  const { results } = await statement(db, query).all();
  return parseRows(AttentionRowSchema, results).map((row) => ({
    formId: row.form_id,
    destination: row.destination,
    held: row.held,
    gone: row.gone,
    reason: row.reason,
  }));
}

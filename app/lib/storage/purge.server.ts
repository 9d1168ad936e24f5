import sql, { type Sql } from "sql-template-tag";
import { statement } from "~/lib/storage/sql.server";

// Deleting submissions always takes their outbox rows and delivery attempts with them. The schema
// also cascades, but the statements say it explicitly so the rule holds even where foreign keys are
// off, and all three go in one batch so nothing is left half-deleted.

export type PurgeSelector = { ids: readonly string[] } | { formId: string; receivedBefore: string };

function selected(selector: PurgeSelector): Sql {
  if ("ids" in selector) return sql`SELECT value FROM json_each(${JSON.stringify(selector.ids)})`;
  return sql`SELECT id FROM submissions WHERE form_id = ${selector.formId} AND received_at < ${selector.receivedBefore}`;
}

/** The three DELETEs, children first; `submissions.meta.changes` is the number of submissions removed. */
export function purgeStatements(
  db: D1Database,
  selector: PurgeSelector,
): { attempts: D1PreparedStatement; deliveries: D1PreparedStatement; submissions: D1PreparedStatement } {
  const ids = selected(selector);
  return {
    attempts: statement(
      db,
      sql`DELETE FROM delivery_attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE submission_id IN (${ids}))`,
    ),
    deliveries: statement(db, sql`DELETE FROM deliveries WHERE submission_id IN (${ids})`),
    submissions: statement(db, sql`DELETE FROM submissions WHERE id IN (${ids})`),
  };
}

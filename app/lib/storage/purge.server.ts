// Deleting submissions always takes their outbox rows and delivery attempts with them. The schema
// also cascades, but the statements say it explicitly so the rule holds even where foreign keys are
// off, and all three go in one batch so nothing is left half-deleted.

export type PurgeSelector = { ids: readonly string[] } | { formId: string; receivedBefore: string };

function where(selector: PurgeSelector): { sql: string; binds: unknown[] } {
  if ("ids" in selector) return { sql: "SELECT value FROM json_each(?1)", binds: [JSON.stringify(selector.ids)] };
  return { sql: "SELECT id FROM submissions WHERE form_id = ?1 AND received_at < ?2", binds: [selector.formId, selector.receivedBefore] };
}

/** The three DELETEs, children first; the last one's `meta.changes` is the number of submissions removed. */
export function purgeStatements(db: D1Database, selector: PurgeSelector): D1PreparedStatement[] {
  const { sql, binds } = where(selector);
  return [
    db
      .prepare(`DELETE FROM delivery_attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE submission_id IN (${sql}))`)
      .bind(...binds),
    db.prepare(`DELETE FROM deliveries WHERE submission_id IN (${sql})`).bind(...binds),
    db.prepare(`DELETE FROM submissions WHERE id IN (${sql})`).bind(...binds),
  ];
}

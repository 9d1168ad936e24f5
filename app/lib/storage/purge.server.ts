import { deleteFileObjects, fileIdsOfRows, fileIdsStatement } from "~/lib/storage/file-objects.server";

// Deleting submissions always takes their outbox rows, delivery attempts and files with them. The schema
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

/**
 * Deletes the selected submissions for good: their files in R2 first, then (in one batch) the rows,
 * with `also` (an audit row) in the same batch. Files go first so a failure never leaves an object
 * without its submission: if R2 fails nothing is deleted, and if D1 fails the rows stay for the next
 * try, their files already gone. Returns the batch's results: selector i's submission count is
 * `results[i * 3 + 2].meta.changes`. D1 and R2 errors throw, and so does a missing bucket when
 * there are files to delete.
 */
export async function purgeSubmissions(
  db: D1Database,
  bucket: R2Bucket | null,
  selectors: readonly PurgeSelector[],
  also: readonly D1PreparedStatement[] = [],
): Promise<D1Result[]> {
  if (selectors.length === 0) return also.length > 0 ? db.batch([...also]) : [];
  const found = await db.batch(selectors.map((selector) => fileIdsStatement(db, selector)));
  const fileIds = found.flatMap((result) => fileIdsOfRows(result.results));
  if (fileIds.length > 0) {
    if (!bucket) throw new Error("the Worker has no UPLOADS binding, so the files of these submissions cannot be deleted");
    await deleteFileObjects(bucket, fileIds);
  }
  return db.batch([...selectors.flatMap((selector) => purgeStatements(db, selector)), ...also]);
}

import sql, { type Sql } from "sql-template-tag";
import { deleteFileObjects, fileIdsOfRows, fileIdsStatement } from "~/lib/storage/file-objects.server";
import { runBatch, statement } from "~/lib/storage/sql.server";

// Deleting submissions always takes their outbox rows, delivery attempts and files with them. The schema
// also cascades, but the statements say it explicitly so the rule holds even where foreign keys are
// off, and all three go in one batch so nothing is left half-deleted.

// Always by ids, so every DELETE is bounded by the chunk its caller read (docs/decisions/060).
export type PurgeSelector = { ids: readonly string[] };

function selected(selector: PurgeSelector): Sql {
  return sql`SELECT value FROM json_each(${JSON.stringify(selector.ids)})`;
}

/**
 * The three DELETEs, children first; `submissions.results` holds one row per submission removed (not
 * `meta.changes`, which counts what the triggers of migration 0021 wrote too).
 */
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
    submissions: statement(db, sql`DELETE FROM submissions WHERE id IN (${ids}) RETURNING id`),
  };
}

/**
 * Deletes the selected submissions' files from R2, to be called before their rows' batch: an R2
 * failure then deletes nothing, and a D1 failure leaves rows whose files are gone, never an object
 * without its row (docs/decisions/052). D1 and R2 errors throw, and so does a missing bucket when
 * there are files to delete.
 */
export async function purgeFiles(db: D1Database, bucket: R2Bucket | null, selectors: readonly PurgeSelector[]): Promise<void> {
  if (selectors.length === 0) return;
  const found = await runBatch(
    db,
    selectors.map((selector) => fileIdsStatement(db, selected(selector))),
  );
  const fileIds = found.flatMap((result) => fileIdsOfRows(result.results));
  if (fileIds.length === 0) return;
  if (!bucket) throw new Error("the Worker has no UPLOADS binding, so the files of these submissions cannot be deleted");
  await deleteFileObjects(bucket, fileIds);
}

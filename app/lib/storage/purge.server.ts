import sql, { type Sql } from "sql-template-tag";
import { deleteFileObjects, fileIdsOfRows, fileIdsStatement } from "~/lib/storage/file-objects.server";
import { runBatch, statement } from "~/lib/storage/sql.server";

// Deleting submissions takes their outbox rows, attempts and files with them, said explicitly (not only by the
// schema's cascade) so it holds where foreign keys are off, in one batch.

// Always by ids, so every DELETE is bounded by the chunk its caller read (ADR 060).
export type PurgeSelector = { ids: readonly string[] };

function selected(selector: PurgeSelector): Sql {
  return sql`SELECT value FROM json_each(${JSON.stringify(selector.ids)})`;
}

/** The three DELETEs, children first; `submissions.results` has a row per submission removed (not `meta.changes`). */
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

/** Deletes the files from R2 before their rows' batch, so no object outlives its row (ADR 052). D1 and R2 errors throw. */
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

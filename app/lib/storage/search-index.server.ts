import sql from "sql-template-tag";
import { z } from "zod";
import type { InvocationBudget } from "~/lib/platform/budget.server";
import { parseRows, runBatch, statement } from "~/lib/storage/sql.server";

// The search index is filled by the cron, not the accept (ADR 101): one chunk pays FTS5's per-transaction cost
// for hundreds. Submissions above the cursor are "pending": search and erase read them the old way meanwhile.

/** The cursor, as a SQL subquery: the rowid up to which every moved submission is indexed. */
export const INDEXED_UP_TO = sql`(SELECT indexed_up_to FROM search_index WHERE id = 1)`;

export const INDEX_CHUNK = 500;
/** Chunks per cron run at most, so the cron's other jobs keep their share of the invocation. */
export const INDEX_MAX_CHUNKS = 5;
const CHUNK_QUERIES = 2;

const MovedRowSchema = z.object({ up_to: z.number(), last: z.number() });

/** Indexes the next `limit` submissions above the cursor and moves it past them, in one transaction. D1 errors throw. */
export async function indexSubmissionChunk(db: D1Database, limit = INDEX_CHUNK): Promise<{ upTo: number; more: boolean }> {
  const next = sql`SELECT rowid AS r FROM submissions WHERE rowid > ${INDEXED_UP_TO} ORDER BY rowid LIMIT ${limit}`;
  const done = await runBatch(db, {
    index: statement(
      db,
      sql`INSERT INTO submissions_fts (rowid, search_text)
        SELECT s.rowid, coalesce(s.search_text, '') FROM (${next}) AS n JOIN submissions s ON s.rowid = n.r WHERE s.state IS NOT NULL`,
    ),
    cursor: statement(
      db,
      sql`UPDATE search_index SET indexed_up_to = coalesce((SELECT max(r) FROM (${next})), indexed_up_to) WHERE id = 1
        RETURNING indexed_up_to AS up_to, (SELECT coalesce(max(rowid), 0) FROM submissions) AS last`,
    ),
  });
  const [row] = parseRows(MovedRowSchema, done.cursor.results);
  if (!row) throw new Error("search_index has no cursor row (migration 0051)");
  return { upTo: row.up_to, more: row.up_to < row.last };
}

/** Indexes chunks while `budget` allows (up to INDEX_MAX_CHUNKS); returns the cursor and whether rows are left. D1 errors throw. */
export async function indexPendingSubmissions(
  db: D1Database,
  budget: InvocationBudget,
  chunk = INDEX_CHUNK,
): Promise<{ upTo: number | null; more: boolean }> {
  let result: { upTo: number | null; more: boolean } = { upTo: null, more: true };
  for (let i = 0; i < INDEX_MAX_CHUNKS && result.more && budget.trySpend({ d1Queries: CHUNK_QUERIES }); i++) {
    result = await indexSubmissionChunk(db, chunk);
  }
  return result;
}

/** The statement that counts the submissions waiting above the cursor (`n`), up to `cap` + 1 of them. */
export function pendingSearchRows(db: D1Database, cap: number): D1PreparedStatement {
  return statement(db, sql`SELECT count(*) AS n FROM (SELECT 1 FROM submissions WHERE rowid > ${INDEXED_UP_TO} LIMIT ${cap + 1})`);
}

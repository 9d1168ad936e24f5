import sql from "sql-template-tag";
import { z } from "zod";
import type { InvocationBudget } from "~/lib/platform/budget.server";
import { searchTextOf } from "~/lib/storage/search-text.server";
import { parseRows, runBatch, statement } from "~/lib/storage/sql.server";
import { stateOf } from "~/lib/storage/submission-state.server";
import { SubmissionRowSchema } from "~/lib/storage/submissions.server";

// Moves submissions stored before migration 0021 onto their stored state, in chunks on the cron (ADR 060); the
// NULL state is the cursor, so the state index hands out the oldest unmoved rows first.

/** Rows per chunk: one read and one batch each, well under a second at 1,000,000 rows. */
export const BACKFILL_CHUNK = 200;
export const BACKFILL_MAX_CHUNKS = 5;

const UnmovedRowSchema = SubmissionRowSchema.pick({ id: true, fields: true }).extend({ unfolded: z.number() });

/** Moves one chunk of unmoved rows; returns how many it moved (0: none is left). D1 errors throw. */
export async function moveSubmissionChunk(db: D1Database, limit = BACKFILL_CHUNK): Promise<number> {
  const { results } = await statement(
    db,
    sql`SELECT id, fields, search_text IS NULL AS unfolded FROM submissions INDEXED BY submissions_state_received
      WHERE state IS NULL ORDER BY received_at, id LIMIT ${limit}`,
  ).all();
  const rows = parseRows(UnmovedRowSchema, results);
  if (rows.length === 0) return 0;
  const ids = JSON.stringify(rows.map((row) => row.id));
  const folded = rows.filter((row) => row.unfolded === 1).map((row) => ({ id: row.id, text: searchTextOf(row.fields) }));
  await runBatch(db, {
    fold:
      folded.length === 0
        ? null
        : statement(
            db,
            sql`UPDATE submissions SET search_text = f.text
              FROM (SELECT json_extract(value, '$.id') AS id, json_extract(value, '$.text') AS text FROM json_each(${JSON.stringify(folded)})) AS f
              WHERE submissions.id = f.id AND submissions.search_text IS NULL`,
          ),
    move: statement(
      db,
      // `+state`: by the primary key, never by the state index, which would walk every unmoved row.
      sql`UPDATE submissions SET state = ${stateOf("submissions")}
        WHERE id IN (SELECT value FROM json_each(${ids})) AND +state IS NULL`,
    ),
  });
  return rows.length;
}

/** Moves chunks while `budget` allows (three D1 calls each, up to BACKFILL_MAX_CHUNKS); returns rows moved. D1 errors throw. */
export async function backfillSubmissions(db: D1Database, budget: InvocationBudget, chunk = BACKFILL_CHUNK): Promise<number> {
  let moved = 0;
  for (let i = 0; i < BACKFILL_MAX_CHUNKS && budget.trySpend({ d1Queries: 3 }); i++) {
    const done = await moveSubmissionChunk(db, chunk);
    moved += done;
    if (done < chunk) break;
  }
  return moved;
}

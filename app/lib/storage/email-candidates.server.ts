import sql from "sql-template-tag";
import { z } from "zod";
import { INDEXED_UP_TO } from "~/lib/storage/search-index.server";
import { parseRows, runBatch, statement } from "~/lib/storage/sql.server";
import { wordsOf } from "~/lib/storage/search-text.server";

// Erase by e-mail finds submissions through the search index (ADR 060): the address's words as one phrase, each
// value then compared in the Worker. Unmoved and not yet indexed rows (ADR 101) are read the old way, all of them.

export interface EmailCandidate {
  id: string;
  formId: string;
  receivedAt: string;
  value: string;
}

/** Submissions one look-up takes at most; the next goes on from where it stopped (findByEmail loops). */
export const CANDIDATE_LIMIT = 500;

const CandidateRowSchema = z.object({ id: z.string(), form_id: z.string(), received_at: z.string(), value: z.string() });

const VALUES = sql`j.type = 'text' AND instr(j.value, '@') > 0`;

/** The address's words as an exact FTS5 phrase, or null when it has none. */
function phraseOf(email: string): string | null {
  const words = wordsOf(email);
  return words.length > 0 ? `"${words.join(" ")}"` : null;
}

const SeqRowSchema = z.object({ n: z.number(), last: z.number().nullable() });

/** The "@"-holding values of up to CANDIDATE_LIMIT submissions whose text holds `email`'s words, after rowid `after`. D1 errors throw. */
export async function listEmailCandidates(
  db: D1Database,
  email: string,
  maxLength: number,
  after = 0,
): Promise<{ candidates: EmailCandidate[]; next: number | null }> {
  const phrase = phraseOf(email);
  const matches = sql`SELECT rowid AS r FROM submissions_fts WHERE submissions_fts MATCH ${phrase ?? '""'} AND rowid > ${after}
    ORDER BY rowid LIMIT ${CANDIDATE_LIMIT}`;
  const done = await runBatch(db, {
    indexed:
      phrase === null
        ? null
        : statement(
            db,
            sql`SELECT s.id, s.form_id, s.received_at, j.value AS value
              FROM (${matches}) AS m JOIN submissions s ON s.rowid = m.r, json_each(s.fields) j
              WHERE ${VALUES} AND length(j.value) <= ${maxLength}`,
          ),
    window: phrase === null ? null : statement(db, sql`SELECT count(*) AS n, max(r) AS last FROM (${matches})`),
    unmoved:
      after > 0
        ? null
        : statement(
            db,
            sql`SELECT s.id, s.form_id, s.received_at, j.value AS value FROM submissions s INDEXED BY submissions_state_received, json_each(s.fields) j
              WHERE s.state IS NULL AND ${VALUES} AND length(j.value) <= ${maxLength}`,
          ),
    pending:
      after > 0
        ? null
        : statement(
            db,
            sql`SELECT s.id, s.form_id, s.received_at, j.value AS value FROM submissions s, json_each(s.fields) j
              WHERE s.rowid > ${INDEXED_UP_TO} AND s.state IS NOT NULL AND ${VALUES} AND length(j.value) <= ${maxLength}`,
          ),
  });
  const window = done.window ? SeqRowSchema.parse(done.window.results[0]) : null;
  const candidates = [done.indexed, done.unmoved, done.pending]
    .flatMap((result) => (result ? parseRows(CandidateRowSchema, result.results) : []))
    .sort((a, b) => a.received_at.localeCompare(b.received_at) || a.id.localeCompare(b.id))
    .map((row) => ({ id: row.id, formId: row.form_id, receivedAt: row.received_at, value: row.value }));
  return { candidates, next: window && window.n >= CANDIDATE_LIMIT ? window.last : null };
}

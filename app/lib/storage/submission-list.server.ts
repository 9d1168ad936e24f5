import sql, { empty, join, raw, type Sql } from "sql-template-tag";
import { z } from "zod";
import { decodeBase64Url, encodeBase64Url } from "~/lib/crypto/base64";
import { INDEXED_UP_TO, pendingSearchRows } from "~/lib/storage/search-index.server";
import { foldForSearch, MAX_SEARCH_WORDS, readSearchWords, wordsOf } from "~/lib/storage/search-text.server";
import { parseRows, runBatch, statement } from "~/lib/storage/sql.server";
import { stateOf } from "~/lib/storage/submission-state.server";
import { SUBMISSION_STATES, type FilterState, type SubmissionState } from "~/lib/storage/submission-states";
import { STORED_COLUMNS, storedSubmissionOf, StoredRowSchema, type StoredSubmission } from "~/lib/storage/submissions.server";

// The submissions list (ADR 060): one page in one round trip, through an index that matches the filters, paged
// by keyset, never OFFSET. A search walks the full-text index newest first, SEARCH_WINDOW matches a page; rows
// not yet moved (state NULL) or indexed (ADR 101, at most PENDING_CAP) are read beside and merged in.

export const PAGE_SIZE = 25;
/** Full-text matches one page looks at, at most: the page's rows-read bound under a search. */
export const SEARCH_WINDOW = 400;
/** Submissions above the search index's cursor a search reads the old way, at most (the oldest first). */
export const PENDING_CAP = 200;

export interface SubmissionFilter {
  form?: string;
  status?: FilterState;
  /** YYYY-MM-DD, inclusive, UTC. */
  from?: string;
  to?: string;
  q?: string;
}

export interface ListedSubmission {
  submission: StoredSubmission;
  state: SubmissionState;
}

/** `next`: the older page's cursor, `prev`: the newer's; `unsearched`: more than PENDING_CAP wait for the index. */
export interface SubmissionPage {
  items: ListedSubmission[];
  next: string | null;
  prev: string | null;
  unsearched?: boolean;
}

// After (older than) or before (newer than) a (received_at, id) key, or a search's rowid.
type Key = { at: string; id: string } | { seq: number };
interface Position {
  dir: "after" | "before";
  key: Key;
}

const PositionSchema = z.object({
  d: z.enum(["a", "b"]),
  t: z.string().max(40).optional(),
  i: z.string().max(100).optional(),
  s: z.number().int().nonnegative().optional(),
});

function encodeCursor({ dir, key }: Position): string {
  const body = "seq" in key ? { d: dir[0], s: key.seq } : { d: dir[0], t: key.at, i: key.id };
  return encodeBase64Url(new TextEncoder().encode(JSON.stringify(body)));
}

/** A cursor back into a position, or null when it is not one of ours (the list then starts at the top). */
function decodeCursor(cursor: string | null, search: boolean): Position | null {
  if (!cursor || cursor.length > 400) return null;
  const bytes = decodeBase64Url(cursor);
  if (!bytes) return null;
  let parsed: z.infer<typeof PositionSchema>;
  try {
    parsed = PositionSchema.parse(JSON.parse(new TextDecoder().decode(bytes)));
  } catch {
    return null;
  }
  const dir = parsed.d === "a" ? "after" : "before";
  if (search) return parsed.s === undefined ? null : { dir, key: { seq: parsed.s } };
  return parsed.t === undefined || parsed.i === undefined ? null : { dir, key: { at: parsed.t, id: parsed.i } };
}

/** Whether `cursor` is one this list handed out for a listing with (`search`) or without a search. */
export function isListCursor(cursor: string, search: boolean): boolean {
  return decodeCursor(cursor, search) !== null;
}

/** The exclusive upper bound of an inclusive YYYY-MM-DD "to" date: the end of that day, as an ISO prefix. */
function endOfDay(date: string): string {
  // "T24" sorts after every time of that day and before the next day, for any year zod accepts.
  return `${date}T24`;
}

/** A search's distinct words, capped so every statement stays bounded whatever a caller passes. */
function searchWordsOf(q: string): string[] {
  const read = readSearchWords(q);
  return read.ok ? read.words : [...new Set(wordsOf(q))].slice(0, MAX_SEARCH_WORDS);
}

/** A search as an FTS5 query of whole quoted words, all required (a prefix would merge every match first). */
export function ftsQueryOf(q: string): string | null {
  const words = searchWordsOf(q);
  return words.length > 0 ? words.map((word) => `"${word}"`).join(" ") : null;
}

const ListedRowSchema = StoredRowSchema.extend({ derived_state: z.enum(SUBMISSION_STATES), seq: z.number() }).transform((row) => ({
  submission: storedSubmissionOf(row),
  state: row.derived_state,
  seq: row.seq,
}));
type ListedRow = z.infer<typeof ListedRowSchema>;
const WindowRowSchema = z.object({ n: z.number(), last: z.number().nullable(), first: z.number().nullable() });
const PendingRowSchema = z.object({ n: z.number() });

function rangeClauses(filter: SubmissionFilter): Sql[] {
  const clauses: Sql[] = [];
  if (filter.form) clauses.push(sql`s.form_id = ${filter.form}`);
  if (filter.from) clauses.push(sql`s.received_at >= ${filter.from}`);
  if (filter.to) clauses.push(sql`s.received_at < ${endOfDay(filter.to)}`);
  return clauses;
}

const where = (clauses: Sql[]) => (clauses.length > 0 ? sql`WHERE ${join(clauses, " AND ")}` : empty);

/** The index that serves a filter in (received_at, id) order: its columns lead with the filter's equalities. */
function indexFor(filter: SubmissionFilter, unmoved: boolean): Sql {
  const byState = unmoved || filter.status !== undefined;
  if (filter.form) return raw(byState ? "submissions_form_state_received" : "submissions_form_received_id");
  return raw(byState ? "submissions_state_received" : "submissions_received");
}

function keyClause(position: Position | null, seqColumn: Sql): Sql | null {
  if (!position) return null;
  const op = raw(position.dir === "after" ? "<" : ">");
  const { key } = position;
  return "seq" in key ? sql`${seqColumn} ${op} ${key.seq}` : sql`(s.received_at, s.id) ${op} (${key.at}, ${key.id})`;
}

function order(position: Position | null, columns: readonly string[]): Sql {
  const dir = position?.dir === "before" ? "ASC" : "DESC";
  return raw(`ORDER BY ${columns.map((column) => `${column} ${dir}`).join(", ")}`);
}

function timeOrdered(db: D1Database, filter: SubmissionFilter, position: Position | null, limit: number) {
  const key = keyClause(position, sql`s.rowid`);
  const base = [...rangeClauses(filter), ...(key ? [key] : [])];
  const sort = order(position, ["s.received_at", "s.id"]);
  const moved = [...base, filter.status ? sql`s.state = ${filter.status}` : sql`s.state IS NOT NULL`];
  const unmoved = [...base, sql`s.state IS NULL`, ...(filter.status ? [sql`${stateOf("s")} = ${filter.status}`] : [])];
  return {
    moved: statement(
      db,
      sql`SELECT ${STORED_COLUMNS}, s.state AS derived_state, s.rowid AS seq FROM submissions s INDEXED BY ${indexFor(filter, false)}
        ${where(moved)} ${sort} LIMIT ${limit + 1}`,
    ),
    unmoved: statement(
      db,
      sql`SELECT ${STORED_COLUMNS}, ${stateOf("s")} AS derived_state, s.rowid AS seq FROM submissions s INDEXED BY ${indexFor(filter, true)}
        ${where(unmoved)} ${sort} LIMIT ${limit + 1}`,
    ),
    window: null,
  };
}

function searched(db: D1Database, filter: SubmissionFilter & { q: string }, position: Position | null, limit: number) {
  const match = ftsQueryOf(filter.q);
  const words = searchWordsOf(filter.q);
  const key = keyClause(position, sql`s.rowid`);
  const ftsKey = keyClause(position, sql`rowid`);
  const sort = order(position, ["seq"]);
  const states = filter.status ? [sql`s.state = ${filter.status}`] : [sql`s.state IS NOT NULL`];
  const matches = sql`SELECT rowid AS r FROM submissions_fts WHERE submissions_fts MATCH ${match ?? '""'}
    ${ftsKey ? sql`AND ${ftsKey}` : empty} ${order(position, ["rowid"])} LIMIT ${SEARCH_WINDOW}`;
  const { q } = filter;
  // instr, not LIKE: D1 refuses LIKE patterns over 50 bytes; a row not yet folded (migration 0010) is
  // matched as before, ASCII case only.
  const oldMatch = sql`(s.id = ${q} OR instr(s.search_text, ${foldForSearch(q)}) > 0 OR (s.search_text IS NULL AND instr(lower(s.fields), lower(${q})) > 0))`;
  return {
    moved:
      match === null
        ? null
        : statement(
            db,
            sql`SELECT ${STORED_COLUMNS}, s.state AS derived_state, w.r AS seq FROM (${matches}) AS w JOIN submissions s ON s.rowid = w.r
              ${where([...rangeClauses(filter), ...states])} ${sort} LIMIT ${limit + 1}`,
          ),
    byId: statement(
      db,
      sql`SELECT ${STORED_COLUMNS}, s.state AS derived_state, s.rowid AS seq FROM submissions s
        ${where([sql`s.id = ${q}`, ...rangeClauses(filter), ...states, ...(key ? [key] : [])])}`,
    ),
    unmoved: statement(
      db,
      sql`SELECT ${STORED_COLUMNS}, ${stateOf("s")} AS derived_state, s.rowid AS seq FROM submissions s INDEXED BY ${indexFor(filter, true)}
        ${where([...rangeClauses(filter), sql`s.state IS NULL`, oldMatch, ...(filter.status ? [sql`${stateOf("s")} = ${filter.status}`] : []), ...(key ? [key] : [])])}
        ${sort} LIMIT ${limit + 1}`,
    ),
    window: match === null ? null : statement(db, sql`SELECT count(*) AS n, min(r) AS last, max(r) AS first FROM (${matches})`),
    // Not indexed yet: the words are one JSON parameter, so the statement does not grow with them; CROSS
    // JOIN keeps the capped rows the outer loop (the planner would otherwise walk a filter's index).
    pending:
      match === null
        ? null
        : statement(
            db,
            sql`SELECT ${STORED_COLUMNS}, s.search_text, s.state AS derived_state, s.rowid AS seq
              FROM (SELECT rowid AS r FROM submissions WHERE rowid > ${INDEXED_UP_TO} ORDER BY rowid LIMIT ${PENDING_CAP}) AS p
              CROSS JOIN submissions s ON s.rowid = p.r
              ${where([...rangeClauses(filter), ...states, ...(key ? [key] : []), sql`NOT EXISTS (SELECT 1 FROM json_each(${JSON.stringify(words)}) AS w WHERE instr(s.search_text, w.value) = 0)`])}`,
          ),
    behind: match === null ? null : pendingSearchRows(db, PENDING_CAP),
  };
}

/** Whether a row's folded text holds every one of `words` as a whole word, as the full-text index matches. */
function holdsWords(words: readonly string[]) {
  return (row: unknown): boolean => {
    const text = (row as { search_text?: unknown }).search_text;
    if (typeof text !== "string") return false;
    const have = new Set(wordsOf(text));
    return words.every((word) => have.has(word));
  };
}

function keyOf(row: ListedRow, search: boolean): Key {
  return search ? { seq: row.seq } : { at: row.submission.receivedAt, id: row.submission.id };
}

function newerFirst(search: boolean) {
  return (a: ListedRow, b: ListedRow): number => {
    if (search) return b.seq - a.seq;
    const at = b.submission.receivedAt.localeCompare(a.submission.receivedAt);
    return at !== 0 ? at : b.submission.id < a.submission.id ? -1 : b.submission.id > a.submission.id ? 1 : 0;
  };
}

/** One page matching `filter` from `cursor` (null: newest) in one round trip; cursors stay stable while rows arrive. D1 errors throw. */
export async function listSubmissionPage(
  db: D1Database,
  filter: SubmissionFilter,
  cursor: string | null,
  limit = PAGE_SIZE,
): Promise<SubmissionPage> {
  const search = Boolean(filter.q);
  const position = decodeCursor(cursor, search);
  const parts = filter.q ? searched(db, { ...filter, q: filter.q }, position, limit) : timeOrdered(db, filter, position, limit);
  const done = await runBatch(db, parts);
  const pending = "pending" in done && done.pending && filter.q ? done.pending.results.filter(holdsWords(searchWordsOf(filter.q))) : [];
  const rows = [
    ...[done.moved, "byId" in done ? done.byId : null, done.unmoved].flatMap((result) =>
      result ? parseRows(ListedRowSchema, result.results) : [],
    ),
    ...parseRows(ListedRowSchema, pending),
  ];
  const behind = "behind" in done && done.behind ? PendingRowSchema.parse(done.behind.results[0]).n > PENDING_CAP : false;
  const backward = position?.dir === "before";
  const compare = newerFirst(search);
  const walk = backward ? (a: ListedRow, b: ListedRow) => compare(b, a) : compare;
  const seen = new Set<string>();
  let found = rows.sort(walk).filter((row) => !seen.has(row.submission.id) && seen.add(row.submission.id));
  // A full search window covers its matches only as far as its last rowid: rows past it wait for the next page.
  const window = done.window ? WindowRowSchema.parse(done.window.results[0]) : null;
  const windowFull = window !== null && window.n >= SEARCH_WINDOW;
  const edge = window ? (backward ? window.first : window.last) : null;
  if (windowFull && edge !== null) found = found.filter((row) => (backward ? row.seq <= edge : row.seq >= edge));
  const more = found.length > limit || windowFull;
  const page = found.slice(0, limit);
  const far = found.length > limit ? keyOf(page[page.length - 1], search) : windowFull && edge !== null ? { seq: edge } : null;
  const farCursor = more && far ? encodeCursor({ dir: backward ? "before" : "after", key: far }) : null;
  const nearCursor = position && page.length > 0 ? encodeCursor({ dir: backward ? "after" : "before", key: keyOf(page[0], search) }) : null;
  // Past the last row going on, the way back is from the cursor itself.
  const backCursor = position && page.length === 0 ? encodeCursor({ dir: backward ? "after" : "before", key: position.key }) : null;
  const items = (backward ? [...page].reverse() : page).map(({ submission, state }) => ({ submission, state }));
  const answer = backward
    ? { items, prev: farCursor, next: nearCursor ?? backCursor }
    : { items, next: farCursor, prev: nearCursor ?? backCursor };
  return behind ? { ...answer, unsearched: true } : answer;
}

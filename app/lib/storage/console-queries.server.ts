import sql, { empty, join, type Sql } from "sql-template-tag";
import { z } from "zod";
import { AttemptRowSchema, DeliveryRowSchema } from "~/lib/storage/deliveries.server";
import { foldForSearch } from "~/lib/storage/search-text.server";
import { parseRows, runBatch, statement } from "~/lib/storage/sql.server";
import { SUBMISSION_STATES, type SubmissionState } from "~/lib/storage/submission-states";
import { storedSubmissionOf, SubmissionRowSchema, type StoredSubmission } from "~/lib/storage/submissions.server";

// The operator console's reads. A submission's state is derived, not stored: quarantined, else dead if
// any destination gave up, else pending while any is still queued, else delivered; "stored" means it
// had no destination at all.

export const PAGE_SIZE = 25;
const DAY_MS = 86_400_000;

export const STATE_SQL = sql`CASE
  WHEN s.status = 'quarantined' THEN 'quarantined'
  WHEN EXISTS (SELECT 1 FROM deliveries d WHERE d.submission_id = s.id AND d.status = 'dead') THEN 'dead'
  WHEN EXISTS (SELECT 1 FROM deliveries d WHERE d.submission_id = s.id AND d.status = 'pending') THEN 'pending'
  WHEN EXISTS (SELECT 1 FROM deliveries d WHERE d.submission_id = s.id) THEN 'delivered'
  ELSE 'stored' END`;

const StateSchema = z.enum(SUBMISSION_STATES);
// A submission row (`s.*`) with its derived state beside it.
export const ListedRowSchema = SubmissionRowSchema.extend({ state: StateSchema }).transform((row) => ({
  submission: storedSubmissionOf(row),
  state: row.state,
}));

export interface FormCounts {
  formId: string;
  today: number;
  week: number;
  quarantined: number;
  dead: number;
}

export interface DayBucket {
  day: string;
  counts: Record<SubmissionState, number>;
}

// Counts that are not numbers, or states that are not states, are bugs to surface, not values to render.
const CountSchema = z
  .number()
  .nullable()
  .transform((n) => n ?? 0);
const PerFormRowSchema = z.object({ form_id: z.string(), today: CountSchema, week: CountSchema, quarantined: CountSchema });
const DeadRowSchema = z.object({ form_id: z.string(), dead: z.number() });
const DayRowSchema = z.object({ day: z.string(), state: StateSchema, n: z.number() });
const TotalRowSchema = z.object({ n: z.number() });

function emptyCounts(): Record<SubmissionState, number> {
  return Object.fromEntries(SUBMISSION_STATES.map((state) => [state, 0])) as Record<SubmissionState, number>;
}

/** Counts per form (UTC today, last 7 days, quarantined, dead deliveries) and 14 daily buckets. D1 errors throw. */
export async function loadDashboard(db: D1Database, formIds: readonly string[], nowMs: number) {
  const todayStart = new Date(nowMs - (nowMs % DAY_MS)).toISOString();
  const weekStart = new Date(nowMs - 7 * DAY_MS).toISOString();
  const chartStartMs = nowMs - (nowMs % DAY_MS) - 13 * DAY_MS;
  const done = await runBatch(db, {
    perForm: statement(
      db,
      sql`SELECT form_id, SUM(received_at >= ${todayStart}) AS today, SUM(received_at >= ${weekStart}) AS week,
          SUM(status = 'quarantined') AS quarantined
        FROM submissions GROUP BY form_id`,
    ),
    dead: statement(db, sql`SELECT form_id, COUNT(*) AS dead FROM deliveries WHERE status = 'dead' GROUP BY form_id`),
    days: statement(
      db,
      sql`SELECT substr(s.received_at, 1, 10) AS day, ${STATE_SQL} AS state, COUNT(*) AS n
        FROM submissions s WHERE s.received_at >= ${new Date(chartStartMs).toISOString()} GROUP BY day, state`,
    ),
  });
  const counts = new Map<string, FormCounts>();
  const entry = (formId: string) => {
    if (!counts.has(formId)) counts.set(formId, { formId, today: 0, week: 0, quarantined: 0, dead: 0 });
    return counts.get(formId)!;
  };
  formIds.forEach(entry);
  for (const row of parseRows(PerFormRowSchema, done.perForm.results)) {
    Object.assign(entry(row.form_id), { today: row.today, week: row.week, quarantined: row.quarantined });
  }
  for (const row of parseRows(DeadRowSchema, done.dead.results)) entry(row.form_id).dead = row.dead;

  const buckets: DayBucket[] = Array.from({ length: 14 }, (_, i) => ({
    day: new Date(chartStartMs + i * DAY_MS).toISOString().slice(0, 10),
    counts: emptyCounts(),
  }));
  for (const row of parseRows(DayRowSchema, done.days.results)) {
    const bucket = buckets.find((b) => b.day === row.day);
    if (bucket) bucket.counts[row.state] += row.n;
  }
  return { forms: [...counts.values()], days: buckets };
}

export interface ListFilters {
  formId?: string;
  state?: SubmissionState;
  /** YYYY-MM-DD, inclusive, UTC. */
  from?: string;
  to?: string;
  q?: string;
  page: number;
}

/** The exclusive upper bound of an inclusive YYYY-MM-DD "to" date: the end of that day, as an ISO prefix. */
function endOfDay(date: string): string {
  // "T24" sorts after every time of that day and before the next day, for any year zod accepts.
  return `${date}T24`;
}

export interface ListedSubmission {
  submission: StoredSubmission;
  state: SubmissionState;
}

/** The list's filters but state, as SQL conditions over `submissions s` (state filters the derived column). */
export function filterClauses(filters: Omit<ListFilters, "page" | "state">): Sql[] {
  const clauses: Sql[] = [];
  if (filters.formId) clauses.push(sql`s.form_id = ${filters.formId}`);
  if (filters.from) clauses.push(sql`s.received_at >= ${filters.from}`);
  if (filters.to) clauses.push(sql`s.received_at < ${endOfDay(filters.to)}`);
  if (filters.q) {
    // instr, not LIKE: D1 refuses LIKE patterns over 50 bytes ("pattern too complex", a 500), and
    // instr needs no escaping. A row stored before the folded search text existed (migration 0010) is
    // read as before, ASCII case only.
    const { q } = filters;
    clauses.push(
      sql`(s.id = ${q} OR instr(s.search_text, ${foldForSearch(q)}) > 0 OR (s.search_text IS NULL AND instr(lower(s.fields), lower(${q})) > 0))`,
    );
  }
  return clauses;
}

/** One page of submissions matching the filters, newest first, with the total count. D1 errors throw. */
export async function listSubmissions(db: D1Database, filters: ListFilters) {
  const clauses = filterClauses(filters);
  const where = clauses.length > 0 ? sql`WHERE ${join(clauses, " AND ")}` : empty;
  const inner = sql`SELECT s.*, ${STATE_SQL} AS state FROM submissions s ${where}`;
  const outerWhere = filters.state ? sql`WHERE state = ${filters.state}` : empty;
  const offset = (filters.page - 1) * PAGE_SIZE;
  const done = await runBatch(db, {
    page: statement(db, sql`SELECT * FROM (${inner}) ${outerWhere} ORDER BY received_at DESC, id DESC LIMIT ${PAGE_SIZE} OFFSET ${offset}`),
    total: statement(db, sql`SELECT COUNT(*) AS n FROM (${inner}) ${outerWhere}`),
  });
  const items: ListedSubmission[] = parseRows(ListedRowSchema, done.page.results);
  const count = TotalRowSchema.parse(done.total.results[0]).n;
  return { items, total: count, pages: Math.max(1, Math.ceil(count / PAGE_SIZE)) };
}

export interface DeliveryView {
  id: string;
  destination: string;
  status: "pending" | "delivered" | "dead";
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
  log: Array<{ attemptedAt: string; httpStatus: number | null; error: string | null; latencyMs: number; responseExcerpt: string | null }>;
}

/** A submission with its derived state and every delivery and attempt, or null. D1 errors throw. */
export async function loadSubmissionDetail(db: D1Database, id: string) {
  const done = await runBatch(db, {
    submission: statement(db, sql`SELECT s.*, ${STATE_SQL} AS state FROM submissions s WHERE s.id = ${id}`),
    deliveries: statement(db, sql`SELECT * FROM deliveries WHERE submission_id = ${id} ORDER BY destination`),
    attempts: statement(
      db,
      sql`SELECT a.* FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
        WHERE d.submission_id = ${id} ORDER BY a.id`,
    ),
  });
  const [listed] = parseRows(ListedRowSchema, done.submission.results);
  if (!listed) return null;
  const attempts = parseRows(AttemptRowSchema, done.attempts.results);
  const deliveries: DeliveryView[] = parseRows(DeliveryRowSchema, done.deliveries.results).map((d) => ({
    id: d.id,
    destination: d.destination,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: d.next_attempt_at,
    lastError: d.last_error,
    createdAt: d.created_at,
    deliveredAt: d.delivered_at,
    log: attempts
      .filter((a) => a.delivery_id === d.id)
      .map((a) => ({
        attemptedAt: a.attempted_at,
        httpStatus: a.http_status,
        error: a.error,
        latencyMs: a.latency_ms,
        responseExcerpt: a.response_excerpt,
      })),
  }));
  return { ...listed, deliveries };
}

/** A value of a submission that may be an e-mail address, for erase by e-mail to compare in the Worker. */
export interface EmailCandidate {
  id: string;
  formId: string;
  receivedAt: string;
  value: string;
}

const CandidateRowSchema = z.object({ id: z.string(), form_id: z.string(), received_at: z.string(), value: z.string() });

/**
 * Every text value holding an "@" and no longer than `maxLength`, oldest submission first: SQLite's
 * lower() folds ASCII only, so the Worker does the comparing (admin/erase.server.ts). D1 errors throw.
 */
export async function listEmailCandidates(db: D1Database, maxLength: number): Promise<EmailCandidate[]> {
  const query = sql`SELECT s.id, s.form_id, s.received_at, j.value AS value FROM submissions s, json_each(s.fields) j
    WHERE j.type = 'text' AND instr(j.value, '@') > 0 AND length(j.value) <= ${maxLength}
    ORDER BY s.received_at, s.id`;
  const { results } = await statement(db, query).all();
  return parseRows(CandidateRowSchema, results).map((row) => ({
    id: row.id,
    formId: row.form_id,
    receivedAt: row.received_at,
    value: row.value,
  }));
}

import { z } from "zod";
import { IsoDateSchema, TokenSchema } from "~/lib/admin/input.server";
import { STATES, type SubmissionState } from "~/lib/storage/submission-states";
import { parseSubmissionRow, type StoredSubmission } from "~/lib/storage/submissions.server";
import { foldForSearch } from "~/lib/storage/search-text.server";

// Read-side queries for the operator console. A submission's state is derived, not stored: it is
// quarantined, else dead if any destination gave up, else pending while any is still queued, else
// delivered; "stored" means it had no destination at all.

export const PAGE_SIZE = 25;
const DAY_MS = 86_400_000;

export const STATE_SQL = `CASE
  WHEN s.status = 'quarantined' THEN 'quarantined'
  WHEN EXISTS (SELECT 1 FROM deliveries d WHERE d.submission_id = s.id AND d.status = 'dead') THEN 'dead'
  WHEN EXISTS (SELECT 1 FROM deliveries d WHERE d.submission_id = s.id AND d.status = 'pending') THEN 'pending'
  WHEN EXISTS (SELECT 1 FROM deliveries d WHERE d.submission_id = s.id) THEN 'delivered'
  ELSE 'stored' END`;

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

// Rows read back from D1 are parsed before use: a count that is not a number or a state that is not
// a state is a bug to surface, not a value to render.
const StateSchema = z.enum([...STATES, "stored"]);
const CountSchema = z
  .number()
  .nullable()
  .transform((n) => n ?? 0);
const PerFormRowSchema = z.object({ form_id: z.string(), today: CountSchema, week: CountSchema, quarantined: CountSchema });
const DeadRowSchema = z.object({ form_id: z.string(), dead: z.number() });
const DayRowSchema = z.object({ day: z.string(), state: StateSchema, n: z.number() });
const TotalRowSchema = z.object({ n: z.number() });
const DeliveryRowSchema = z.object({
  id: z.string(),
  destination: z.string(),
  status: z.enum(["pending", "delivered", "dead"]),
  attempts: z.number(),
  next_attempt_at: z.number(),
  last_error: z.string().nullable(),
  created_at: z.string(),
  delivered_at: z.string().nullable(),
});
const AttemptRowSchema = z.object({
  delivery_id: z.string(),
  attempted_at: z.string(),
  http_status: z.number().nullable(),
  error: z.string().nullable(),
  latency_ms: z.number(),
  response_excerpt: z.string().nullable(),
});

function emptyCounts(): Record<SubmissionState, number> {
  return { delivered: 0, pending: 0, dead: 0, quarantined: 0, stored: 0 };
}

/** Counts per form (UTC today, last 7 days, quarantined, dead deliveries) and 14 daily buckets. D1 errors throw. */
export async function loadDashboard(db: D1Database, formIds: readonly string[], nowMs = Date.now()) {
  const todayStart = new Date(nowMs - (nowMs % DAY_MS)).toISOString();
  const weekStart = new Date(nowMs - 7 * DAY_MS).toISOString();
  const chartStartMs = nowMs - (nowMs % DAY_MS) - 13 * DAY_MS;
  const [perForm, dead, days] = await db.batch<Record<string, unknown>>([
    db
      .prepare(
        `SELECT form_id, SUM(received_at >= ?1) AS today, SUM(received_at >= ?2) AS week,
           SUM(status = 'quarantined') AS quarantined
         FROM submissions GROUP BY form_id`,
      )
      .bind(todayStart, weekStart),
    db.prepare("SELECT form_id, COUNT(*) AS dead FROM deliveries WHERE status = 'dead' GROUP BY form_id"),
    db
      .prepare(
        `SELECT substr(s.received_at, 1, 10) AS day, ${STATE_SQL} AS state, COUNT(*) AS n
         FROM submissions s WHERE s.received_at >= ?1 GROUP BY day, state`,
      )
      .bind(new Date(chartStartMs).toISOString()),
  ]);
  const counts = new Map<string, FormCounts>();
  const entry = (formId: string) => {
    if (!counts.has(formId)) counts.set(formId, { formId, today: 0, week: 0, quarantined: 0, dead: 0 });
    return counts.get(formId)!;
  };
  formIds.forEach(entry);
  for (const row of z.array(PerFormRowSchema).parse(perForm.results)) {
    Object.assign(entry(row.form_id), { today: row.today, week: row.week, quarantined: row.quarantined });
  }
  for (const row of z.array(DeadRowSchema).parse(dead.results)) entry(row.form_id).dead = row.dead;

  const buckets: DayBucket[] = Array.from({ length: 14 }, (_, i) => ({
    day: new Date(chartStartMs + i * DAY_MS).toISOString().slice(0, 10),
    counts: emptyCounts(),
  }));
  for (const row of z.array(DayRowSchema).parse(days.results)) {
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

/** One filter value: a bad one is dropped (the filter keeps its default), never an error. */
const optionalFilter = <T>(schema: z.ZodType<T>) => schema.optional().catch(undefined);

export const ListFiltersSchema = z
  .object({
    form: optionalFilter(TokenSchema),
    status: optionalFilter(z.enum(STATES)),
    from: optionalFilter(IsoDateSchema),
    to: optionalFilter(IsoDateSchema),
    q: optionalFilter(z.string().transform((q) => q.trim().slice(0, 200) || undefined)),
    page: z
      .string()
      .regex(/^\d{1,9}$/)
      .transform((page) => Math.min(Math.max(Number(page), 1), 10_000))
      .catch(1),
  })
  .transform(({ form, status, page, ...rest }): ListFilters => ({ formId: form, state: status, ...rest, page }));

/** Reads list filters from a query string, dropping anything malformed instead of failing. Never throws. */
export function parseListFilters(params: URLSearchParams): ListFilters {
  const first: Record<string, string> = {};
  for (const key of ["form", "status", "from", "to", "q", "page"]) {
    const value = params.get(key);
    if (value !== null) first[key] = value;
  }
  return ListFiltersSchema.parse(first);
}

/** The exclusive upper bound of an inclusive YYYY-MM-DD "to" date: the end of that day, as an ISO prefix. */
export function endOfDay(date: string): string {
  // "T24" sorts after every time of that day and before the next day, for any year zod accepts.
  return `${date}T24`;
}

export interface ListedSubmission {
  submission: StoredSubmission;
  state: SubmissionState;
}

/** One page of submissions matching the filters, newest first, with the total count. D1 errors throw. */
export async function listSubmissions(db: D1Database, filters: ListFilters) {
  const clauses: string[] = [];
  const binds: unknown[] = [];
  const bind = (value: unknown) => `?${binds.push(value)}`;
  if (filters.formId) clauses.push(`s.form_id = ${bind(filters.formId)}`);
  if (filters.from) clauses.push(`s.received_at >= ${bind(filters.from)}`);
  if (filters.to) clauses.push(`s.received_at < ${bind(endOfDay(filters.to))}`);
  if (filters.q) {
    // instr, not LIKE: D1 refuses LIKE patterns over 50 bytes ("pattern too complex", a 500), and
    // instr needs no escaping. The search text is folded beyond ASCII by the Worker, the query the same
    // way (search-text.server.ts); a row stored before it existed is read as before, ASCII case only.
    const q = bind(filters.q);
    const folded = bind(foldForSearch(filters.q));
    clauses.push(
      `(s.id = ${q} OR instr(s.search_text, ${folded}) > 0 OR (s.search_text IS NULL AND instr(lower(s.fields), lower(${q})) > 0))`,
    );
  }
  const inner = `SELECT s.*, ${STATE_SQL} AS state FROM submissions s ${clauses.length ? `WHERE ${clauses.join(" AND ")}` : ""}`;
  const outerWhere = filters.state ? `WHERE state = ${bind(filters.state)}` : "";
  const offset = (filters.page - 1) * PAGE_SIZE;
  const [rows, total] = await db.batch<Record<string, unknown>>([
    db
      .prepare(`SELECT * FROM (${inner}) ${outerWhere} ORDER BY received_at DESC, id DESC LIMIT ${PAGE_SIZE} OFFSET ${offset}`)
      .bind(...binds),
    db.prepare(`SELECT COUNT(*) AS n FROM (${inner}) ${outerWhere}`).bind(...binds),
  ]);
  const items: ListedSubmission[] = rows.results.map((row) => ({
    submission: parseSubmissionRow(row),
    state: StateSchema.parse(row.state),
  }));
  const count = TotalRowSchema.parse(total.results[0]).n;
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
  const [subRows, deliveryRows, attemptRows] = await db.batch<Record<string, unknown>>([
    db.prepare(`SELECT s.*, ${STATE_SQL} AS state FROM submissions s WHERE s.id = ?1`).bind(id),
    db.prepare("SELECT * FROM deliveries WHERE submission_id = ?1 ORDER BY destination").bind(id),
    db
      .prepare(
        `SELECT a.* FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
         WHERE d.submission_id = ?1 ORDER BY a.id`,
      )
      .bind(id),
  ]);
  const row = subRows.results[0];
  if (!row) return null;
  const attempts = z.array(AttemptRowSchema).parse(attemptRows.results);
  const deliveries: DeliveryView[] = z
    .array(DeliveryRowSchema)
    .parse(deliveryRows.results)
    .map((d) => ({
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
  return { submission: parseSubmissionRow(row), state: StateSchema.parse(row.state), deliveries };
}

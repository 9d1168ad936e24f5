import { STATES, type SubmissionState } from "~/lib/storage/submission-states";
import { parseSubmissionRow, type StoredSubmission } from "~/lib/storage/submissions.server";

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
      .prepare(`SELECT substr(s.received_at, 1, 10) AS day, ${STATE_SQL} AS state, COUNT(*) AS n
         FROM submissions s WHERE s.received_at >= ?1 GROUP BY day, state`)
      .bind(new Date(chartStartMs).toISOString()),
  ]);
  const counts = new Map<string, FormCounts>();
  const entry = (formId: string) => {
    if (!counts.has(formId)) counts.set(formId, { formId, today: 0, week: 0, quarantined: 0, dead: 0 });
    return counts.get(formId)!;
  };
  formIds.forEach(entry);
  for (const row of perForm.results) {
    Object.assign(entry(String(row.form_id)), { today: Number(row.today), week: Number(row.week), quarantined: Number(row.quarantined) });
  }
  for (const row of dead.results) entry(String(row.form_id)).dead = Number(row.dead);

  const buckets: DayBucket[] = Array.from({ length: 14 }, (_, i) => ({
    day: new Date(chartStartMs + i * DAY_MS).toISOString().slice(0, 10),
    counts: emptyCounts(),
  }));
  for (const row of days.results) {
    const bucket = buckets.find((b) => b.day === row.day);
    if (bucket && String(row.state) in bucket.counts) bucket.counts[row.state as SubmissionState] += Number(row.n);
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

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Reads list filters from a query string, dropping anything malformed instead of failing. */
export function parseListFilters(params: URLSearchParams): ListFilters {
  const state = params.get("status") ?? "";
  const page = Number.parseInt(params.get("page") ?? "1", 10);
  return {
    formId: params.get("form") || undefined,
    state: (STATES as readonly string[]).includes(state) ? (state as SubmissionState) : undefined,
    from: DATE.test(params.get("from") ?? "") ? params.get("from")! : undefined,
    to: DATE.test(params.get("to") ?? "") ? params.get("to")! : undefined,
    q: params.get("q")?.trim().slice(0, 200) || undefined,
    page: Number.isFinite(page) && page > 0 ? Math.min(page, 10_000) : 1,
  };
}

/** The day after a YYYY-MM-DD date, for inclusive "to" bounds. */
export function nextDay(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
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
  if (filters.to) clauses.push(`s.received_at < ${bind(nextDay(filters.to))}`);
  if (filters.q) {
    const like = `%${filters.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    clauses.push(`(s.id = ${bind(filters.q)} OR s.fields LIKE ${bind(like)} ESCAPE '\\')`);
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
    state: String(row.state) as SubmissionState,
  }));
  const count = Number(total.results[0]?.n ?? 0);
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
  const deliveries: DeliveryView[] = deliveryRows.results.map((d) => ({
    id: String(d.id),
    destination: String(d.destination),
    status: d.status as DeliveryView["status"],
    attempts: Number(d.attempts),
    nextAttemptAt: Number(d.next_attempt_at),
    lastError: d.last_error == null ? null : String(d.last_error),
    createdAt: String(d.created_at),
    deliveredAt: d.delivered_at == null ? null : String(d.delivered_at),
    log: attemptRows.results
      .filter((a) => a.delivery_id === d.id)
      .map((a) => ({
        attemptedAt: String(a.attempted_at),
        httpStatus: a.http_status == null ? null : Number(a.http_status),
        error: a.error == null ? null : String(a.error),
        latencyMs: Number(a.latency_ms),
        responseExcerpt: a.response_excerpt == null ? null : String(a.response_excerpt),
      })),
  }));
  return { submission: parseSubmissionRow(row), state: String(row.state) as SubmissionState, deliveries };
}

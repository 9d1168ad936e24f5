import sql from "sql-template-tag";
import { z } from "zod";
import { AttemptRowSchema, DeliveryRowSchema } from "~/lib/storage/deliveries.server";
import { parseRows, runBatch, statement } from "~/lib/storage/sql.server";
import { stateOf } from "~/lib/storage/submission-state.server";
import { SUBMISSION_STATES, type SubmissionState } from "~/lib/storage/submission-states";
import { STORED_COLUMNS, storedSubmissionOf, StoredRowSchema } from "~/lib/storage/submissions.server";

// The console's reads besides the list: each reads what its page shows, never the table (ADR 060); a console
// test (submissions.test = 1) is listed, marked, but never counted.

const DAY_MS = 86_400_000;

export const CURRENT_STATE = sql`coalesce(s.state, ${stateOf("s")})`;

const StateSchema = z.enum(SUBMISSION_STATES);
export const ListedRowSchema = StoredRowSchema.extend({ current_state: StateSchema }).transform((row) => ({
  submission: storedSubmissionOf(row),
  state: row.current_state,
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

const CountRowSchema = z.object({ form_id: z.string(), day: z.string(), state: StateSchema, n: z.number() });
const DeadRowSchema = z.object({ form_id: z.string(), n: z.number() });

function emptyCounts(): Record<SubmissionState, number> {
  return Object.fromEntries(SUBMISSION_STATES.map((state) => [state, 0])) as Record<SubmissionState, number>;
}

/** Counts per form and 14 daily buckets, from the kept counts plus unmoved rows, tests left out. D1 errors throw. */
export async function loadDashboard(db: D1Database, formIds: readonly string[], nowMs: number) {
  const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const today = dayOf(nowMs);
  const weekStart = dayOf(nowMs - 6 * DAY_MS);
  const chartStart = dayOf(nowMs - 13 * DAY_MS);
  const done = await runBatch(db, {
    days: statement(
      db,
      sql`SELECT form_id, day, state, SUM(n) AS n FROM submission_counts WHERE day >= ${chartStart} AND test = 0 GROUP BY form_id, day, state`,
    ),
    quarantined: statement(
      db,
      sql`SELECT form_id, '' AS day, state, SUM(n) AS n FROM submission_totals WHERE state = 'quarantined' AND test = 0 GROUP BY form_id`,
    ),
    dead: statement(db, sql`SELECT form_id, n FROM dead_delivery_counts`),
    deadTests: statement(db, sql`SELECT form_id, n FROM dead_test_delivery_counts`),
    unmoved: statement(
      db,
      sql`SELECT s.form_id, substr(s.received_at, 1, 10) AS day, ${stateOf("s")} AS state, COUNT(*) AS n
        FROM submissions s INDEXED BY submissions_state_received WHERE s.state IS NULL AND s.test = 0 GROUP BY 1, 2, 3`,
    ),
  });
  const counts = new Map<string, FormCounts>();
  const entry = (formId: string) => {
    if (!counts.has(formId)) counts.set(formId, { formId, today: 0, week: 0, quarantined: 0, dead: 0 });
    return counts.get(formId)!;
  };
  formIds.forEach(entry);
  const buckets: DayBucket[] = Array.from({ length: 14 }, (_, i) => ({ day: dayOf(nowMs - (13 - i) * DAY_MS), counts: emptyCounts() }));
  const addDay = (row: z.infer<typeof CountRowSchema>) => {
    const form = entry(row.form_id);
    if (row.day === today) form.today += row.n;
    if (row.day >= weekStart && row.day <= today) form.week += row.n;
    const bucket = buckets.find((b) => b.day === row.day);
    if (bucket) bucket.counts[row.state] += row.n;
  };
  parseRows(CountRowSchema, done.days.results).forEach(addDay);
  for (const row of parseRows(CountRowSchema, done.quarantined.results)) entry(row.form_id).quarantined += row.n;
  for (const row of parseRows(CountRowSchema, done.unmoved.results)) {
    if (row.day >= chartStart) addDay(row);
    if (row.state === "quarantined") entry(row.form_id).quarantined += row.n;
  }
  for (const row of parseRows(DeadRowSchema, done.dead.results)) entry(row.form_id).dead = row.n;
  for (const row of parseRows(DeadRowSchema, done.deadTests.results)) entry(row.form_id).dead -= row.n;
  return { forms: [...counts.values()], days: buckets };
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

/** A submission with its state and every delivery and attempt, or null. D1 errors throw. */
export async function loadSubmissionDetail(db: D1Database, id: string) {
  const done = await runBatch(db, {
    submission: statement(db, sql`SELECT ${STORED_COLUMNS}, ${CURRENT_STATE} AS current_state FROM submissions s WHERE s.id = ${id}`),
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

/** The deliveries with every receiver's reply excerpt dropped: what a viewer may read. */
export function withoutReplyExcerpts(deliveries: readonly DeliveryView[]): DeliveryView[] {
  return deliveries.map((d) => ({ ...d, log: d.log.map((attempt) => ({ ...attempt, responseExcerpt: null })) }));
}

import { env } from "cloudflare:test";
import { expect } from "vitest";

// A database large enough that a scan would show (docs/decisions/060), seeded inside the test through
// D1 itself: each statement generates its rows in SQL (a recursive CTE), so 20,000 submissions with
// their deliveries, attempts and audit lines take a few batches, and the triggers of migration 0021
// keep states and counts as the app's own writes would; the search index is then brought up to date in
// one statement, as the cron's job index-search would over a few runs (docs/decisions/101).

export const SCALE_ROWS = 20_000;
/** The rows-read budget of every console view (issue 36). */
export const VIEW_ROWS_BUDGET = 2_000;
export const SCALE_NOW = Date.parse("2026-06-15T12:00:00.000Z");
const FORMS = ["contact", "newsletter", "apply"];

/** Row `i`'s id: a fixed-shape UUID, so tests can name any row. */
export const scaleId = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;

/**
 * Seeds `count` submissions a minute apart back from SCALE_NOW (row 0 newest), across three forms: 2 %
 * quarantined, the rest with 1.6 deliveries each (1 % of submissions dead, 2 % pending), an attempt
 * per settled delivery, and `audit` audit lines. `moved` false stores them as rows from before
 * migration 0021 (state NULL). Row i's text holds "person<i>@example.org" and, every 1000th, "rare".
 */
export async function seedScale(count = SCALE_ROWS, { moved = true, audit = 3_000, first = 0 } = {}): Promise<void> {
  // Oldest first, as they would have arrived: rowids follow received_at.
  const rows = `WITH RECURSIVE n(i) AS (SELECT ${first + count - 1} UNION ALL SELECT i - 1 FROM n WHERE i > ${first})`;
  const quarantined = "i % 50 = 7";
  const form = `CASE i % 3 WHEN 0 THEN '${FORMS[0]}' WHEN 1 THEN '${FORMS[1]}' ELSE '${FORMS[2]}' END`;
  const id = `'00000000-0000-4000-8000-' || printf('%012d', i)`;
  const received = `strftime('%Y-%m-%dT%H:%M:%fZ', ${SCALE_NOW / 1000} - i * 60, 'unixepoch')`;
  const text = `'Person ' || i || char(10) || 'person' || i || '@example.org' || char(10) || 'Hello number ' || i || CASE WHEN i % 1000 = 0 THEN ' rare' ELSE '' END`;
  const statements = [
    `${rows} INSERT INTO submissions (id, form_id, fields, received_at, status, quarantine_reason, verify_hostname, verify_action,
        verify_challenge_ts, search_text, test, state)
      SELECT ${id}, ${form},
        json_object('name', 'Person ' || i, 'email', 'person' || i || '@example.org', 'message', 'Hello number ' || i || CASE WHEN i % 1000 = 0 THEN ' rare' ELSE '' END),
        ${received}, CASE WHEN ${quarantined} THEN 'quarantined' ELSE 'accepted' END, CASE WHEN ${quarantined} THEN 'honeypot' END,
        'forms.example.org', 'contact', ${received}, lower(${text}), 0,
        ${moved ? `CASE WHEN ${quarantined} THEN 'quarantined' ELSE 'stored' END` : "NULL"}
      FROM n`,
    // A webhook for every submission not quarantined; an e-mail for 3 in 5 (1.6 each): 1 % dead, 2 % pending.
    `${rows} INSERT INTO deliveries (id, submission_id, form_id, destination, status, attempts, next_attempt_at, created_at, delivered_at)
      SELECT 'msg_w' || i, ${id}, ${form}, 'webhook',
        CASE WHEN i % 100 = 3 THEN 'dead' WHEN i % 50 = 11 THEN 'pending' ELSE 'delivered' END,
        CASE WHEN i % 100 = 3 THEN 8 ELSE 1 END, ${SCALE_NOW} + 60000, ${received}, CASE WHEN i % 100 NOT IN (3) AND i % 50 <> 11 THEN ${received} END
      FROM n WHERE NOT (${quarantined})`,
    `${rows} INSERT INTO deliveries (id, submission_id, form_id, destination, status, attempts, next_attempt_at, created_at, delivered_at)
      SELECT 'msg_e' || i, ${id}, ${form}, 'email', 'delivered', 1, ${SCALE_NOW}, ${received}, ${received}
      FROM n WHERE NOT (${quarantined}) AND i % 5 < 3`,
    `${rows} INSERT INTO delivery_attempts (delivery_id, attempted_at, http_status, error, latency_ms)
      SELECT 'msg_w' || i, ${received}, CASE WHEN i % 100 = 3 THEN 503 ELSE 200 END, CASE WHEN i % 100 = 3 THEN 'http_status' END, 120
      FROM n WHERE NOT (${quarantined})`,
  ];
  if (audit > 0)
    statements.push(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${audit - 1})
        INSERT INTO audit_log (at, actor, role, action, target, detail, ip)
        SELECT strftime('%Y-%m-%dT%H:%M:%fZ', ${SCALE_NOW / 1000} - i * 600, 'unixepoch'), 'password:admin', 'admin', 'export', 'contact', '{"rows":1}', '203.0.113.9'
        FROM n`,
    );
  statements.push(
    `INSERT INTO submissions_fts (rowid, search_text) SELECT rowid, coalesce(search_text, '') FROM submissions
      WHERE rowid > (SELECT indexed_up_to FROM search_index) AND state IS NOT NULL`,
    "UPDATE search_index SET indexed_up_to = (SELECT coalesce(max(rowid), 0) FROM submissions)",
  );
  await env.DB.batch(statements.map((sql) => env.DB.prepare(sql)));
}

/** Empties every table the scale seed fills, counts and search index included. */
export async function clearScale(): Promise<void> {
  await env.DB.batch(
    [
      "DELETE FROM delivery_attempts",
      "DELETE FROM deliveries",
      "DELETE FROM submissions",
      "DELETE FROM audit_log",
      "DELETE FROM submission_counts",
      "DELETE FROM submission_totals",
      "DELETE FROM dead_delivery_counts",
      "DELETE FROM dead_test_delivery_counts",
      "INSERT INTO submissions_fts (submissions_fts) VALUES ('delete-all')",
    ].map((sql) => env.DB.prepare(sql)),
  );
}

/**
 * The app's D1 binding, adding up the rows D1 says each call read (`meta.rows_read`). `first()` is
 * answered through `all()`, which carries the meta.
 */
export function meteredDb(db: D1Database): { db: D1Database; rowsRead: () => number; reset: () => void } {
  let read = 0;
  const count = (result: D1Result) => {
    read += result.meta.rows_read ?? 0;
    return result;
  };
  const wrap = (stmt: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(stmt, {
      get(target, key) {
        if (key === "bind") return (...args: unknown[]) => wrap(target.bind(...args));
        if (key === "all" || key === "run") return async () => count(await target.all());
        if (key === "first")
          return async (column?: string) => {
            const row = count(await target.all()).results[0] as Record<string, unknown> | undefined;
            if (row === undefined) return null;
            return column === undefined ? row : row[column];
          };
        if (key === "__real") return target;
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  const proxy = new Proxy(db, {
    get(target, key) {
      if (key === "prepare") return (query: string) => wrap(target.prepare(query));
      if (key === "batch")
        return async (statements: D1PreparedStatement[]) => {
          const real = statements.map((s) => (s as unknown as { __real?: D1PreparedStatement }).__real ?? s);
          return (await target.batch(real)).map(count);
        };
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db: proxy, rowsRead: () => read, reset: () => (read = 0) };
}

const SAME = `CASE WHEN s.status = 'quarantined' THEN 'quarantined' ELSE (
  SELECT CASE WHEN count(*) = 0 THEN 'stored' WHEN max(d.status = 'dead') THEN 'dead'
    WHEN max(d.status = 'pending') THEN 'pending' ELSE 'delivered' END
  FROM deliveries d WHERE d.submission_id = s.id) END`;

/**
 * Holds what the triggers keep to what a recount finds: every moved row's state, the counts per form,
 * day, state and test, the totals, the dead deliveries per form (all, and the tests'), and one index entry per moved row
 * at or below the search index's cursor.
 */
export async function expectKeptRight(): Promise<void> {
  const [wrong, counts, recount, totals, retotal, dead, redead, indexed, moved, deadTests, redeadTests] = await env.DB.batch([
    env.DB.prepare(`SELECT s.id, s.state, ${SAME} AS derived FROM submissions s WHERE s.state IS NOT NULL AND s.state IS NOT ${SAME}`),
    env.DB.prepare("SELECT form_id, day, state, test, n FROM submission_counts WHERE n <> 0 ORDER BY 1, 2, 3, 4"),
    env.DB.prepare(
      `SELECT form_id, substr(received_at, 1, 10) AS day, state, test, COUNT(*) AS n FROM submissions WHERE state IS NOT NULL
        GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
    ),
    env.DB.prepare("SELECT form_id, state, test, n FROM submission_totals WHERE n <> 0 ORDER BY 1, 2, 3"),
    env.DB.prepare("SELECT form_id, state, test, COUNT(*) AS n FROM submissions WHERE state IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"),
    env.DB.prepare("SELECT form_id, n FROM dead_delivery_counts WHERE n <> 0 ORDER BY 1"),
    env.DB.prepare("SELECT form_id, COUNT(*) AS n FROM deliveries WHERE status = 'dead' GROUP BY 1 ORDER BY 1"),
    env.DB.prepare("SELECT COUNT(*) AS n FROM submissions_fts"),
    env.DB.prepare("SELECT COUNT(*) AS n FROM submissions WHERE state IS NOT NULL AND rowid <= (SELECT indexed_up_to FROM search_index)"),
    env.DB.prepare("SELECT form_id, n FROM dead_test_delivery_counts WHERE n <> 0 ORDER BY 1"),
    env.DB.prepare(
      "SELECT d.form_id, COUNT(*) AS n FROM deliveries d JOIN submissions s ON s.id = d.submission_id WHERE d.status = 'dead' AND s.test = 1 GROUP BY 1 ORDER BY 1",
    ),
  ]);
  expect(wrong.results, "states that differ from their deliveries").toEqual([]);
  expect(counts.results, "submission_counts").toEqual(recount.results);
  expect(totals.results, "submission_totals").toEqual(retotal.results);
  expect(dead.results, "dead_delivery_counts").toEqual(redead.results);
  expect(deadTests.results, "dead_test_delivery_counts").toEqual(redeadTests.results);
  expect(indexed.results[0], "one search index entry per moved row at or below the index's cursor").toEqual(moved.results[0]);
}

import sql, { join, type Sql } from "sql-template-tag";
import { z } from "zod";
import {
  judgeRateLimits,
  windowKey,
  windowStart,
  type RateLimitResult,
  type RateRule,
  type RateVerdict,
} from "~/lib/http/rate-limit.server";
import { parseRows, statement, type Prune } from "~/lib/storage/sql.server";
import { storageCodeOf, tryD1 } from "~/lib/storage/d1-failure.server";

// Rate-limit counts in D1: each window is one atomic upsert that returns the new count, so concurrent requests
// can never both pass a limit (ADR 002).

const RateLimitRowSchema = z.object({ key: z.string(), window_start: z.number(), count: z.number() });
const CountRowSchema = RateLimitRowSchema.pick({ key: true, count: true });

/** One upsert for all rules, RETURNING each window's count; with `onlyIf`, nothing is counted unless it holds. */
export function rateLimitStatement(
  db: D1Database,
  rules: readonly RateRule[],
  nowMs: number,
  onlyIf: Sql | null = null,
): D1PreparedStatement {
  const windows = rules.map((rule) => [windowKey(rule), windowStart(rule, nowMs)] as const);
  // An upsert fed by a SELECT needs its WHERE clause (SQLite's parsing rule for INSERT … SELECT … ON CONFLICT).
  const source = onlyIf
    ? sql`SELECT column1, column2, 1 FROM (VALUES ${join(windows.map(([key, start]) => sql`(${key}, ${start})`))}) WHERE ${onlyIf}`
    : sql`VALUES ${join(windows.map(([key, start]) => sql`(${key}, ${start}, 1)`))}`;
  return statement(
    db,
    sql`INSERT INTO rate_limits (key, window_start, count) ${source}
       ON CONFLICT (key, window_start) DO UPDATE SET count = count + 1
       RETURNING key, count`,
  );
}

/** Takes back one hit from each rule's window (never below zero), for an attempt that was no abuse. */
export function refundRateLimitStatement(db: D1Database, rules: readonly RateRule[], nowMs: number): D1PreparedStatement {
  const windows = rules.map((rule) => sql`(key = ${windowKey(rule)} AND window_start = ${windowStart(rule, nowMs)})`);
  return statement(db, sql`UPDATE rate_limits SET count = count - 1 WHERE count > 0 AND (${join(windows, " OR ")})`);
}

/** SQL true when one more hit would put the rule's window over its limit: for guards that decide before counting. */
export function ruleIsFull(rule: RateRule, nowMs: number): Sql {
  return sql`COALESCE((SELECT count FROM rate_limits WHERE key = ${windowKey(rule)} AND window_start = ${windowStart(rule, nowMs)}), 0) >= ${rule.limit}`;
}

/** SQL true when every rule's count, as the batch left it, is within its limit; a missing row fails closed. */
export function withinRateLimits(rules: readonly RateRule[], nowMs: number): Sql {
  if (rules.length === 0) return sql`1`;
  const within = rules.map(
    (rule) =>
      sql`(SELECT count FROM rate_limits WHERE key = ${windowKey(rule)} AND window_start = ${windowStart(rule, nowMs)}) <= ${rule.limit}`,
  );
  return join(within, " AND ");
}

/** The verdict for RETURNING rows, matched by key (their order is not promised); a missing row is over the limit. */
export function verdictOfRows(rules: readonly RateRule[], rows: readonly unknown[], nowMs: number): RateVerdict {
  const counts = new Map<string, number>();
  for (const row of parseRows(CountRowSchema, rows)) counts.set(row.key, Math.max(counts.get(row.key) ?? 0, row.count));
  return judgeRateLimits(
    rules,
    rules.map((rule) => counts.get(windowKey(rule)) ?? Infinity),
    nowMs,
  );
}

/** Counts one hit against every rule in one round trip. D1 failures come back as storage_unavailable. */
export async function hitRateLimits(db: D1Database, rules: readonly RateRule[], nowMs: number): Promise<RateLimitResult> {
  if (rules.length === 0) return judgeRateLimits(rules, [], nowMs);
  // It counts, so a transient failure is not repeated: the count may have committed.
  const done = await tryD1(() => rateLimitStatement(db, rules, nowMs).all(), { retry: false });
  if (!done.ok) return { ok: false, code: storageCodeOf(done, "rate limit check") };
  return verdictOfRows(rules, done.value.results, nowMs);
}

/** The windows that ended more than a day ago. */
export function staleRateLimits(nowMs: number): Prune {
  return { table: "rate_limits", where: sql`window_start < ${Math.floor(nowMs / 1000) - 2 * 86_400}` };
}

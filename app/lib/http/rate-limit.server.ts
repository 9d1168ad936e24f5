import sql, { type Sql } from "sql-template-tag";

// Fixed-window rate limits kept in D1. Each window is one atomic upsert that returns the new count,
// so concurrent requests can never both read "4" and both pass a limit of 5 (docs/decisions/002). The
// accept path puts the upsert in its store batch and guards the insert with withinRateLimits (012).

export interface RateRule {
  /** What is counted, e.g. "form:contact:ip:203.0.113.0/64". */
  key: string;
  limit: number;
  windowSeconds: number;
}

export type RateVerdict =
  | { ok: true; limit: number; remaining: number; resetSeconds: number }
  | { ok: false; limit: number; remaining: 0; resetSeconds: number; rule: RateRule };

export type RateLimitResult = RateVerdict | { ok: false; code: "storage_unavailable" };

function windowStart(rule: RateRule, nowMs: number): number {
  const seconds = Math.floor(nowMs / 1000);
  return seconds - (seconds % rule.windowSeconds);
}

/**
 * A condition for a statement's WHERE clause, numbered from its first parameter, so statements in one
 * batch can be guarded by each other's writes (the accept batch: docs/decisions/012).
 */
export interface SqlCondition {
  sql: (firstParam: number) => string;
  params: unknown[];
}

/**
 * One upsert for every rule: each (key, window) row comes back with its count after this hit. One
 * statement rather than one per rule, since under load every statement costs D1 encoding and decoding
 * work. With `onlyIf`, the hit is counted only when that condition holds (no row comes back otherwise).
 */
export function rateLimitStatement(
  db: D1Database,
  rules: readonly RateRule[],
  nowMs: number,
  onlyIf: SqlCondition | null = null,
): D1PreparedStatement {
  const rows = rules.map((_, i) => `(?${2 * i + 1}, ?${2 * i + 2}${onlyIf ? "" : ", 1"})`).join(", ");
  const params = rules.flatMap((rule) => [windowKey(rule), windowStart(rule, nowMs)]);
  // An upsert fed by a SELECT needs its WHERE clause (SQLite's parsing rule for INSERT … SELECT … ON CONFLICT).
  const source = onlyIf ? `SELECT column1, column2, 1 FROM (VALUES ${rows}) WHERE ${onlyIf.sql(params.length + 1)}` : `VALUES ${rows}`;
  return db
    .prepare(
      `INSERT INTO rate_limits (key, window_start, count) ${source}
       ON CONFLICT (key, window_start) DO UPDATE SET count = count + 1
       RETURNING key, count`,
    )
    .bind(...params, ...(onlyIf?.params ?? []));
}

/**
 * True in SQL when the rule's window is already full: its count (as earlier statements of the same batch
 * left it; none yet reads as 0) is at its limit, so one more would be over. For guards that must decide
 * before counting, such as a confirmation that is counted only once it is queued.
 */
export function ruleIsFull(rule: RateRule, nowMs: number): Sql {
  return sql`COALESCE((SELECT count FROM rate_limits WHERE key = ${windowKey(rule)} AND window_start = ${windowStart(rule, nowMs)}), 0) >= ${rule.limit}`;
}

/**
 * True in SQL when every rule's count (as the rate-limit statement earlier in the same batch left it)
 * is within its limit. A missing row reads as NULL, which is not true: it fails closed.
 */
export function withinRateLimits(rules: readonly RateRule[], nowMs: number): SqlCondition {
  return {
    sql: (n) =>
      rules.length === 0
        ? "1"
        : rules
            .map(
              (_, i) =>
                `(SELECT count FROM rate_limits WHERE key = ?${n + 3 * i} AND window_start = ?${n + 3 * i + 1}) <= ?${n + 3 * i + 2}`,
            )
            .join(" AND "),
    params: rules.flatMap((rule) => [windowKey(rule), windowStart(rule, nowMs), rule.limit]),
  };
}

/**
 * The verdict for rows the rate-limit statement returned. RETURNING rows come in no promised order, so
 * they are matched to rules by key; a rule without its row counts as over its limit (fail closed).
 */
export function verdictOfRows(rules: readonly RateRule[], rows: readonly Record<string, unknown>[], nowMs: number): RateVerdict {
  const counts = new Map<string, number>();
  for (const row of rows) {
    const key = String(row.key);
    counts.set(key, Math.max(counts.get(key) ?? 0, Number(row.count)));
  }
  return judgeRateLimits(
    rules,
    rules.map((rule) => counts.get(windowKey(rule)) ?? Infinity),
    nowMs,
  );
}

function windowKey(rule: RateRule): string {
  return `${rule.key}:${rule.windowSeconds}`;
}

/** Judges counts returned by rateLimitStatement, in the same order as `rules`. The tightest rule wins. */
export function judgeRateLimits(rules: readonly RateRule[], counts: readonly number[], nowMs: number): RateVerdict {
  let verdict: RateVerdict | null = null;
  rules.forEach((rule, i) => {
    const resetSeconds = windowStart(rule, nowMs) + rule.windowSeconds - Math.floor(nowMs / 1000);
    const remaining = Math.max(0, rule.limit - counts[i]);
    if (counts[i] > rule.limit) {
      if (!verdict || verdict.ok || resetSeconds > verdict.resetSeconds) {
        verdict = { ok: false, limit: rule.limit, remaining: 0, resetSeconds, rule };
      }
    } else if (!verdict || (verdict.ok && remaining < verdict.remaining)) {
      verdict = { ok: true, limit: rule.limit, remaining, resetSeconds };
    }
  });
  return verdict ?? { ok: true, limit: Infinity, remaining: Infinity, resetSeconds: 0 };
}

/** Counts one hit against every rule in one round trip. D1 failures come back as storage_unavailable. */
export async function hitRateLimits(db: D1Database, rules: readonly RateRule[], nowMs = Date.now()): Promise<RateLimitResult> {
  if (rules.length === 0) return judgeRateLimits(rules, [], nowMs);
  try {
    const { results } = await rateLimitStatement(db, rules, nowMs).all<Record<string, unknown>>();
    return verdictOfRows(rules, results, nowMs);
  } catch (error) {
    console.error("rate limit check failed:", error);
    return { ok: false, code: "storage_unavailable" };
  }
}

/** The per-IP rules of one form: a minute window and a day window. */
export function formRateRules(formId: string, limits: { perMinute: number; perDay: number }, ip: string | null): RateRule[] {
  const key = `form:${formId}:ip:${ipSubject(ip)}`;
  return [
    { key, limit: limits.perMinute, windowSeconds: 60 },
    { key, limit: limits.perDay, windowSeconds: 86_400 },
  ];
}

/**
 * Headers describing a verdict: `RateLimit` and `RateLimit-Policy` as in the IETF httpapi draft
 * (draft-ietf-httpapi-ratelimit-headers-07), plus `Retry-After` when refused.
 */
export function rateLimitHeaders(verdict: RateVerdict, rules: readonly RateRule[]): Headers {
  const headers = new Headers();
  if (!Number.isFinite(verdict.limit)) return headers;
  headers.set("RateLimit", `limit=${verdict.limit}, remaining=${verdict.remaining}, reset=${verdict.resetSeconds}`);
  headers.set("RateLimit-Policy", rules.map((r) => `${r.limit};w=${r.windowSeconds}`).join(", "));
  if (!verdict.ok) headers.set("Retry-After", String(Math.max(1, verdict.resetSeconds)));
  return headers;
}

/**
 * The subject a client IP is counted under: IPv4 as is, IPv6 grouped by its /64, since one host
 * usually holds a whole /64 and could otherwise rotate addresses to dodge the limit.
 */
export function ipSubject(ip: string | null): string {
  if (!ip) return "unknown";
  if (!ip.includes(":")) return ip;
  const [head, tail = ""] = ip.toLowerCase().split("::");
  const headParts = head ? head.split(":") : [];
  const tailParts = tail ? tail.split(":") : [];
  const missing = Math.max(0, 8 - headParts.length - tailParts.length);
  const groups = ip.includes("::") ? [...headParts, ...Array(missing).fill("0"), ...tailParts] : headParts;
  return `${groups
    .slice(0, 4)
    .map((g) => (parseInt(g, 16) || 0).toString(16))
    .join(":")}::/64`;
}

/** An IPv6 address's /48 ("2001:db8:1::/48"), or null for IPv4 and junk. */
export function ipv6Prefix48(ip: string | null): string | null {
  if (!ip || !ip.includes(":")) return null;
  const groups = ipSubject(ip)
    .replace(/::\/64$/, "")
    .split(":");
  return groups.length === 4 ? `${groups.slice(0, 3).join(":")}::/48` : null;
}

/**
 * The client's network, for budgets a person's whole site or provider shares: an IPv6 address by its
 * /48 (one site or customer usually holds a whole /48, and can rotate /64s inside it at will), an IPv4
 * address as itself (a /32).
 */
export function networkSubject(ip: string | null): string {
  return ipv6Prefix48(ip) ?? ipSubject(ip);
}

/** Deletes windows that ended more than a day ago (called by the scheduled Worker). */
export async function pruneRateLimits(db: D1Database, nowMs = Date.now()): Promise<void> {
  await db
    .prepare("DELETE FROM rate_limits WHERE window_start < ?1")
    .bind(Math.floor(nowMs / 1000) - 2 * 86_400)
    .run();
}

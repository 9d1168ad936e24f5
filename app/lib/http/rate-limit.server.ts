// Fixed-window rate limits kept in D1. Each window is one atomic upsert that returns the new count,
// so concurrent requests can never both read "4" and both pass a limit of 5 (docs/decisions/002).

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
 * A read to run inside the counting statement: a scalar subquery whose value comes back with every
 * counted row, so a caller that also needs a lookup (an idempotency key) adds no statement at all.
 * `sql` gets the number of its first parameter.
 */
export interface RateLimitLookup {
  sql: (firstParam: number) => string;
  params: unknown[];
}

/**
 * One upsert for every rule: each (key, window) row comes back with its count after this hit (and
 * the lookup's value, if any). One statement rather than one per rule, since under load every
 * statement costs D1 encoding and decoding work.
 */
export function rateLimitStatement(
  db: D1Database,
  rules: readonly RateRule[],
  nowMs: number,
  lookup: RateLimitLookup | null = null,
): D1PreparedStatement {
  const rows = rules.map((_, i) => `(?${2 * i + 1}, ?${2 * i + 2}, 1)`).join(", ");
  const params = rules.flatMap((rule) => [windowKey(rule), windowStart(rule, nowMs)]);
  const extra = lookup ? `, ${lookup.sql(params.length + 1)} AS looked_up` : "";
  return db
    .prepare(
      `INSERT INTO rate_limits (key, window_start, count) VALUES ${rows}
       ON CONFLICT (key, window_start) DO UPDATE SET count = count + 1
       RETURNING key, count${extra}`,
    )
    .bind(...params, ...(lookup?.params ?? []));
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
export async function hitRateLimits(
  db: D1Database,
  rules: readonly RateRule[],
  nowMs = Date.now(),
): Promise<RateLimitResult> {
  const result = await hitRateLimitsWith(db, rules, null, nowMs);
  return result.ok ? result.verdict : result;
}

export type RateLimitWithResult =
  /** `lookedUp`: the lookup's value (null when it found nothing or none was asked for). */
  | { ok: true; verdict: RateVerdict; lookedUp: unknown }
  | { ok: false; code: "storage_unavailable" };

/**
 * Counts one hit against every rule and runs `lookup` in the same statement, so a caller that also
 * needs a read (an idempotency key) still makes a single round trip. D1 failures come back as
 * storage_unavailable; it never throws.
 */
export async function hitRateLimitsWith(
  db: D1Database,
  rules: readonly RateRule[],
  lookup: RateLimitLookup | null,
  nowMs = Date.now(),
): Promise<RateLimitWithResult> {
  try {
    if (rules.length === 0) {
      const row = lookup ? await db.prepare(`SELECT ${lookup.sql(1)} AS looked_up`).bind(...lookup.params).first() : null;
      return { ok: true, verdict: judgeRateLimits(rules, [], nowMs), lookedUp: row?.looked_up ?? null };
    }
    const { results } = await rateLimitStatement(db, rules, nowMs, lookup).all<Record<string, unknown>>();
    // RETURNING rows come in no promised order: match them to rules by key. A rule without its row
    // counts as over its limit (fail closed).
    const counts = new Map<string, number>();
    for (const row of results) {
      const key = String(row.key);
      counts.set(key, Math.max(counts.get(key) ?? 0, Number(row.count)));
    }
    const verdict = judgeRateLimits(rules, rules.map((rule) => counts.get(windowKey(rule)) ?? Infinity), nowMs);
    return { ok: true, verdict, lookedUp: results[0]?.looked_up ?? null };
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
  return `${groups.slice(0, 4).map((g) => (parseInt(g, 16) || 0).toString(16)).join(":")}::/64`;
}

/** Deletes windows that ended more than a day ago (called by the scheduled Worker). */
export async function pruneRateLimits(db: D1Database, nowMs = Date.now()): Promise<void> {
  await db.prepare("DELETE FROM rate_limits WHERE window_start < ?1").bind(Math.floor(nowMs / 1000) - 2 * 86_400).run();
}

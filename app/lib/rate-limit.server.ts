// Fixed-window rate limits kept in D1. Each window is one atomic upsert that returns the new count,
// so concurrent requests can never both read "4" and both pass a limit of 5 (docs/decisions/002).
// Statements are exposed separately so a caller can fold them into a batch it already sends.

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

/** The upsert for one rule; its single row carries the count after this hit. */
export function rateLimitStatement(db: D1Database, rule: RateRule, nowMs: number): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO rate_limits (key, window_start, count) VALUES (?1, ?2, 1)
       ON CONFLICT (key, window_start) DO UPDATE SET count = count + 1
       RETURNING count`,
    )
    .bind(`${rule.key}:${rule.windowSeconds}`, windowStart(rule, nowMs));
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
  if (rules.length === 0) return judgeRateLimits(rules, [], nowMs);
  try {
    const results = await db.batch<{ count: number }>(rules.map((rule) => rateLimitStatement(db, rule, nowMs)));
    return judgeRateLimits(rules, results.map((r) => Number(r.results[0]?.count ?? Infinity)), nowMs);
  } catch (error) {
    console.error("rate limit check failed:", error);
    return { ok: false, code: "storage_unavailable" };
  }
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

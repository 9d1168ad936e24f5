import sql from "sql-template-tag";
import { z } from "zod";
import { ipSubject, ipv6Prefix48 } from "~/lib/http/client-ip.server";
import { refusedBy, windowKey, windowStart, type RateRule, type RateVerdict } from "~/lib/http/rate-limit.server";
import {
  rateLimitStatement,
  refundRateLimitStatement,
  ruleIsFull,
  verdictOfRows,
  withinRateLimits,
} from "~/lib/storage/rate-limits.server";
import { runBatch, statement } from "~/lib/storage/sql.server";

// The sign-in budgets (ADR 112), counted before any hashing: wrong passwords per address or device (the lock-out);
// checks under way, taken back after a right one; and the site-wide budget, spent only by a stranger's attempt
// its own budgets let through, so one address cannot spend it for everyone.

const WINDOW_SECONDS = 15 * 60;
/** Wrong passwords from one address or device per window: then 429 until the window ends. */
export const LOGIN_MISS_RULE = { limit: 10, windowSeconds: WINDOW_SECONDS };
/** Attempts from one address or device being checked, or wrong, in a window: a burst's bound. */
export const LOGIN_RATE_RULE = { limit: 24, windowSeconds: WINDOW_SECONDS };
export const LOGIN_PREFIX48_RULE = { limit: 30, windowSeconds: WINDOW_SECONDS };
export const LOGIN_GLOBAL_RULE = { limit: 100, windowSeconds: WINDOW_SECONDS };

export type SignInSubject = { device: string } | { ip: string | null };

export interface SignInBudget {
  attempts: RateRule[];
  misses: RateRule;
  site: RateRule | null;
}

/** The budgets one attempt of `subject` counts against. */
export function signInBudget(subject: SignInSubject): SignInBudget {
  if ("device" in subject) {
    const key = `admin-login:device:${subject.device}`;
    return {
      attempts: [{ key, ...LOGIN_RATE_RULE, policy: "attempts" }],
      misses: { key: `${key}:miss`, ...LOGIN_MISS_RULE, policy: "misses" },
      site: null,
    };
  }
  const key = `admin-login:ip:${ipSubject(subject.ip)}`;
  const attempts: RateRule[] = [{ key, ...LOGIN_RATE_RULE, policy: "attempts" }];
  const prefix = ipv6Prefix48(subject.ip);
  if (prefix) attempts.push({ key: `admin-login:ip48:${prefix}`, ...LOGIN_PREFIX48_RULE });
  return {
    attempts,
    misses: { key: `${key}:miss`, ...LOGIN_MISS_RULE, policy: "misses" },
    site: { key: "admin-login:all", ...LOGIN_GLOBAL_RULE },
  };
}

export type BudgetVerdict =
  | { ok: true; checkNeeded: boolean; siteCounted: boolean }
  | { ok: false; code: "admin_rate_limited"; retryAfterSeconds: number; rate: { verdict: RateVerdict; rules: RateRule[] } };

const CountSchema = z.object({ count: z.number() });

/** Counts one attempt in one round trip: refused (429) while its own budgets are spent, else `checkNeeded` once the site's is. D1 errors throw. */
export async function countSignInAttempt(db: D1Database, budget: SignInBudget, nowMs: number): Promise<BudgetVerdict> {
  const { attempts, misses, site } = budget;
  const done = await runBatch(db, {
    attempts: rateLimitStatement(db, attempts, nowMs),
    misses: statement(
      db,
      sql`SELECT count FROM rate_limits WHERE key = ${windowKey(misses)} AND window_start = ${windowStart(misses, nowMs)}`,
    ),
    site: site
      ? rateLimitStatement(
          db,
          [site],
          nowMs,
          sql`${withinRateLimits(attempts, nowMs)} AND NOT ${ruleIsFull(misses, nowMs)} AND NOT ${ruleIsFull(site, nowMs)}`,
        )
      : null,
  });
  const own = verdictOfRows(attempts, done.attempts.results, nowMs);
  if (!own.ok) {
    return {
      ok: false,
      code: "admin_rate_limited",
      retryAfterSeconds: Math.max(1, own.resetSeconds),
      rate: { verdict: own, rules: attempts },
    };
  }
  const missed = done.misses.results.length > 0 ? CountSchema.parse(done.misses.results[0]).count : 0;
  if (missed >= misses.limit) {
    const reset = windowStart(misses, nowMs) + misses.windowSeconds - Math.floor(nowMs / 1000);
    return {
      ok: false,
      code: "admin_rate_limited",
      retryAfterSeconds: Math.max(1, reset),
      rate: { verdict: refusedBy(misses, reset), rules: [misses] },
    };
  }
  const siteCounted = done.site !== null && done.site.results.length > 0;
  return { ok: true, checkNeeded: site !== null && !siteCounted, siteCounted };
}

/** After the hash: a right password takes its attempt back (site-wide too, if counted); a wrong one counts a miss. */
export function settleSignInAttempt(
  db: D1Database,
  budget: SignInBudget,
  verdict: { siteCounted: boolean },
  right: boolean,
  nowMs: number,
): D1PreparedStatement {
  if (!right) return rateLimitStatement(db, [budget.misses], nowMs);
  return refundRateLimitStatement(db, [...budget.attempts, ...(verdict.siteCounted && budget.site ? [budget.site] : [])], nowMs);
}

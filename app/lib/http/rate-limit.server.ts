import { ipSubject } from "~/lib/http/client-ip.server";

// Fixed-window rate limits: rules, verdicts and headers; the counts live in D1 (ADR 002).

export interface RateRule {
  /** What is counted, e.g. "form:contact:ip:203.0.113.0/64". */
  key: string;
  limit: number;
  windowSeconds: number;
  policy?: string;
}

export type RateVerdict =
  | { ok: true; limit: number; remaining: number; resetSeconds: number; rule?: RateRule }
  | { ok: false; limit: number; remaining: 0; resetSeconds: number; rule: RateRule };

export type RateLimitResult = RateVerdict | { ok: false; code: "storage_unavailable" };

/** The start of the rule's window that holds `nowMs`, in epoch seconds. */
export function windowStart(rule: RateRule, nowMs: number): number {
  const seconds = Math.floor(nowMs / 1000);
  return seconds - (seconds % rule.windowSeconds);
}

/** The key a rule's count is stored under: one rule's minute and day windows never share a row. */
export function windowKey(rule: RateRule): string {
  return `${rule.key}:${rule.windowSeconds}`;
}

/** Judges the counts after this hit, in the same order as `rules`. The tightest rule wins. */
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
      verdict = { ok: true, limit: rule.limit, remaining, resetSeconds, rule };
    }
  });
  return verdict ?? { ok: true, limit: Infinity, remaining: Infinity, resetSeconds: 0 };
}

/** The per-IP rules of one form: a minute window and a day window. */
export function formRateRules(formId: string, limits: { perMinute: number; perDay: number }, ip: string | null): RateRule[] {
  const key = `form:${formId}:ip:${ipSubject(ip)}`;
  return [
    { key, limit: limits.perMinute, windowSeconds: 60 },
    { key, limit: limits.perDay, windowSeconds: 86_400 },
  ];
}

const WINDOW_NAMES: Record<number, string> = { 60: "minute", 3_600: "hour", 86_400: "day" };

/** A rule's policy name: a String of Structured Fields (RFC 9651), so only visible ASCII without `"` or `\\`. */
function policyName(rule: RateRule): string {
  return (rule.policy ?? WINDOW_NAMES[rule.windowSeconds] ?? `${rule.windowSeconds}s`).replace(/[^\x20-\x7e]|["\\]/g, "");
}

/** `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers-11) for every counted answer, `Retry-After` when refused. */
export function rateLimitHeaders(verdict: RateVerdict, rules: readonly RateRule[]): Headers {
  const headers = new Headers();
  if (!Number.isFinite(verdict.limit) || rules.length === 0) return headers;
  const deciding = verdict.rule ?? rules[0];
  headers.set("RateLimit-Policy", rules.map((r) => `"${policyName(r)}";q=${r.limit};w=${r.windowSeconds}`).join(", "));
  headers.set("RateLimit", `"${policyName(deciding)}";r=${verdict.remaining};t=${Math.max(0, verdict.resetSeconds)}`);
  if (!verdict.ok) headers.set("Retry-After", String(Math.max(1, verdict.resetSeconds)));
  return headers;
}

/** A refusal by a limit that counts elsewhere (a rate-limiting binding): its rule, refused until `resetSeconds`. */
export function refusedBy(rule: RateRule, resetSeconds: number): RateVerdict {
  return { ok: false, limit: rule.limit, remaining: 0, resetSeconds, rule };
}

// The throttle in front of siteverify (ADR 028), without a D1 round trip: the Workers Rate Limiting binding
// (`SUBMIT_LIMITER`), else a bounded fixed-window budget in this isolate, home-made because its point is its bounds.

export interface ThrottleRule {
  limit: number;
  periodSeconds: number;
}

export interface IsolateLimiter extends RateLimit {
  limitAt(key: string, nowMs: number): { success: boolean };
  size(): number;
}

/** What wrangler.toml configures the `SUBMIT_LIMITER` binding with (`simple`), for the RateLimit fields of its refusals. */
export const SUBMIT_LIMITER_RULE: ThrottleRule = { limit: 20, periodSeconds: 60 };

/** The rule a refusal of `submitLimiter(env, fallback)` was made under: the binding's, or the isolate's. */
export function throttleRuleOf(env: object, fallback: ThrottleRule): ThrottleRule {
  return (env as { SUBMIT_LIMITER?: RateLimit }).SUBMIT_LIMITER ? SUBMIT_LIMITER_RULE : fallback;
}

export const MAX_ISOLATE_KEYS = 10_000;

/** A fixed-window budget in memory: `limit` calls per key per window, at most `maxKeys` keys. Never throws. */
export function createIsolateLimiter({
  limit,
  periodSeconds,
  maxKeys = MAX_ISOLATE_KEYS,
  now = Date.now,
}: ThrottleRule & { maxKeys?: number; now?: () => number }): IsolateLimiter {
  let window = Number.NaN;
  const counts = new Map<string, number>();
  const limitAt = (key: string, nowMs: number) => {
    const current = Math.floor(nowMs / (periodSeconds * 1000));
    if (current !== window) {
      window = current;
      counts.clear();
    }
    const count = (counts.get(key) ?? 0) + 1;
    if (count === 1 && counts.size >= maxKeys) counts.delete(counts.keys().next().value!);
    counts.set(key, count);
    return { success: count <= limit };
  };
  return { limitAt, limit: async ({ key }) => limitAt(key, now()), size: () => counts.size };
}

// One budget per rule for the isolate's lifetime: that is what "in-isolate" means.
const ISOLATE_BUDGETS = new Map<string, IsolateLimiter>();

function isolateBudget(rule: ThrottleRule): IsolateLimiter {
  const name = `${rule.limit}/${rule.periodSeconds}`;
  let budget = ISOLATE_BUDGETS.get(name);
  if (!budget) ISOLATE_BUDGETS.set(name, (budget = createIsolateLimiter(rule)));
  return budget;
}

/** The `SUBMIT_LIMITER` binding, else (and while it fails) the isolate budget for `fallback`, at `now()` when given. Never throws. */
export function submitLimiter(env: object, fallback: ThrottleRule, now?: () => number): RateLimit {
  const binding = (env as { SUBMIT_LIMITER?: RateLimit }).SUBMIT_LIMITER;
  const isolate = isolateBudget(fallback);
  const budget: RateLimit = now ? { limit: async ({ key }) => isolate.limitAt(key, now()) } : isolate;
  if (!binding) return budget;
  return {
    async limit(options) {
      try {
        return await binding.limit(options);
      } catch (error) {
        console.error("SUBMIT_LIMITER failed; counting in this isolate instead:", error);
        return budget.limit(options);
      }
    },
  };
}

/** Counts one post for `key`: true when it may go on to the provider. Throws only if `limiter` does (submitLimiter's never does). */
export async function throttleBeforeProvider(limiter: RateLimit, key: string): Promise<boolean> {
  return (await limiter.limit({ key })).success;
}

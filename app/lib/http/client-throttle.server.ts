// The throttle in front of siteverify (docs/decisions/028). ADR 012 moved the exact D1 rate limit
// after the provider, so a post costs no D1 round trip unless it carries a verified token; this
// budget bounds how often one client can make Gatepost ask the provider at all, with junk tokens
// included, and also without a D1 round trip. A post refused here never sends its token anywhere.
//
// The seam is the Workers Rate Limiting binding's own shape (`RateLimit`: `limit({ key })` →
// `{ success }`). The Worker declares a `SUBMIT_LIMITER` binding in wrangler.toml, counted per
// Cloudflare location; it is read in submitLimiter, the one place that knows its name. Without one
// (a runtime that lacks it, tests that leave it out), or while it fails, a fixed-window budget in this
// isolate's memory stands in: bounded in keys, it counts only what this isolate sees, so it is a
// floor, not an exact limit. It is home-made because it is a dozen lines whose point is its bounds.

export interface ThrottleRule {
  limit: number;
  periodSeconds: number;
}

export interface IsolateLimiter extends RateLimit {
  /** Keys counted in the current window (tests read it to check the bound). */
  size(): number;
}

/** Most keys one isolate budget counts per window; past it the oldest key is forgotten. */
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
  return {
    async limit({ key }) {
      // Every key shares the window's edges, so a new window simply starts from an empty map.
      const current = Math.floor(now() / (periodSeconds * 1000));
      if (current !== window) {
        window = current;
        counts.clear();
      }
      const count = (counts.get(key) ?? 0) + 1;
      if (count === 1 && counts.size >= maxKeys) counts.delete(counts.keys().next().value!);
      counts.set(key, count);
      return { success: count <= limit };
    },
    size: () => counts.size,
  };
}

// One budget per rule for the isolate's lifetime: this module-level map is the point (it is what
// "in-isolate" means), and it holds a handful of entries, one per distinct rule.
const ISOLATE_BUDGETS = new Map<string, IsolateLimiter>();

function isolateBudget(rule: ThrottleRule): IsolateLimiter {
  const name = `${rule.limit}/${rule.periodSeconds}`;
  let budget = ISOLATE_BUDGETS.get(name);
  if (!budget) ISOLATE_BUDGETS.set(name, (budget = createIsolateLimiter(rule)));
  return budget;
}

/**
 * The limiter for submissions: the `SUBMIT_LIMITER` binding when the deployment has one (its limit is
 * set where the binding is declared), else, and whenever the binding fails, the isolate budget for
 * `fallback`. Never throws.
 */
export function submitLimiter(env: object, fallback: ThrottleRule): RateLimit {
  const binding = (env as { SUBMIT_LIMITER?: RateLimit }).SUBMIT_LIMITER;
  const budget = isolateBudget(fallback);
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

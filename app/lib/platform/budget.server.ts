// The per-invocation limits of the plan (CLOUDFLARE_PLAN) and one budget per invocation every looping job spends
// from (ADR 070): local workerd enforces none of them. Figures: Cloudflare's limits pages, 2026-11 (docs/deploy.md).

export const PLANS = {
  /** Workers Free: 50 subrequests, 50 D1 queries and 10 ms of CPU per invocation. */
  free: { subrequests: 50, d1Queries: 50, cpuMs: 10 },
  /** Workers Paid (standard): 10,000 subrequests, 1,000 D1 queries, 30 s of CPU by default. */
  paid: { subrequests: 10_000, d1Queries: 1_000, cpuMs: 30_000 },
} as const;

export type Plan = keyof typeof PLANS;
export type PlanLimits = { readonly subrequests: number; readonly d1Queries: number; readonly cpuMs: number };

/** "free" (also for empty or unknown values, which the settings report as a problem) or "paid". */
export function parsePlan(raw: string | undefined): Plan | null {
  const value = (raw ?? "").trim().toLowerCase();
  if (value === "") return "free";
  return value === "free" || value === "paid" ? value : null;
}

export interface Cost {
  d1Queries?: number;
  subrequests?: number;
}

/** One invocation's allowance; `reserve` is kept back for the work a handler does after its loop. */
export class InvocationBudget {
  #d1 = 0;
  #sub = 0;
  constructor(
    readonly limits: PlanLimits,
    readonly reserve: Required<Cost> = { d1Queries: 2, subrequests: 0 },
  ) {}

  canAfford(cost: Cost): boolean {
    return (
      this.#d1 + (cost.d1Queries ?? 0) <= this.limits.d1Queries - this.reserve.d1Queries &&
      this.#sub + (cost.subrequests ?? 0) <= this.limits.subrequests - this.reserve.subrequests
    );
  }

  trySpend(cost: Cost): boolean {
    if (!this.canAfford(cost)) return false;
    this.spend(cost);
    return true;
  }

  spend(cost: Cost): void {
    this.#d1 += cost.d1Queries ?? 0;
    this.#sub += cost.subrequests ?? 0;
  }

  get spent(): { d1Queries: number; subrequests: number } {
    return { d1Queries: this.#d1, subrequests: this.#sub };
  }

  /** How many more units of `cost` fit once `overhead` is paid (0 when none does, or not even the overhead). */
  unitsLeft(cost: Cost, overhead: Cost = {}): number {
    const room = (limit: number, reserve: number, spent: number, extra = 0, each = 0) =>
      each ? Math.floor((limit - reserve - spent - extra) / each) : limit - reserve - spent - extra >= 0 ? Infinity : -1;
    const d1 = room(this.limits.d1Queries, this.reserve.d1Queries, this.#d1, overhead.d1Queries, cost.d1Queries);
    const sub = room(this.limits.subrequests, this.reserve.subrequests, this.#sub, overhead.subrequests, cost.subrequests);
    return Math.max(0, Math.min(d1, sub, Number.MAX_SAFE_INTEGER));
  }
}

/** A budget for one invocation on `plan`. */
export function budgetFor(plan: Plan, reserve?: Required<Cost>): InvocationBudget {
  return new InvocationBudget(PLANS[plan], reserve);
}

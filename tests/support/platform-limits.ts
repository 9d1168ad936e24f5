// Stand-ins for Cloudflare's per-invocation limits, which local workerd does not enforce: a D1 binding
// and a fetch that count their calls and, past the limit, throw exactly what the platform throws
// (D1: "Too many API requests by single worker invocation."; fetch and other bindings: "Too many
// subrequests."). Each statement of a batch counts as one query, as app/lib/platform/budget.server.ts
// assumes. One `Invocation` is one Worker invocation: make a fresh one per cron tick or message batch.

export const D1_REFUSAL = "Too many API requests by single worker invocation.";
export const SUBREQUEST_REFUSAL = "Too many subrequests.";

export interface InvocationCounts {
  d1Queries: number;
  subrequests: number;
  /** Calls refused because the invocation's allowance was spent. */
  refusals: number;
}

export interface Invocation {
  db: D1Database;
  fetch: typeof fetch;
  counts: InvocationCounts;
}

/** The Free plan's limits: 50 D1 queries and 50 subrequests per invocation. */
export const FREE_LIMITS = { d1Queries: 50, subrequests: 50 } as const;

/** One invocation over `db` and `inner` fetch that refuses past `limits`, as the platform does. */
export function refusingInvocation(
  db: D1Database,
  inner: typeof fetch = fetch,
  limits: { d1Queries: number; subrequests: number } = FREE_LIMITS,
): Invocation {
  const counts: InvocationCounts = { d1Queries: 0, subrequests: 0, refusals: 0 };
  const spendD1 = (n: number) => {
    if (counts.d1Queries + n > limits.d1Queries) {
      counts.refusals += 1;
      throw new Error(D1_REFUSAL);
    }
    counts.d1Queries += n;
  };
  const real = new WeakMap<object, D1PreparedStatement>();
  const wrap = (statement: D1PreparedStatement): D1PreparedStatement => {
    const wrapped = new Proxy(statement, {
      get(target, key) {
        if (key === "bind") return (...values: unknown[]) => wrap(target.bind(...values));
        if (key === "run" || key === "all" || key === "first" || key === "raw") {
          return async (...args: unknown[]) => {
            spendD1(1);
            return (target[key] as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    real.set(wrapped, statement);
    return wrapped;
  };
  const wrappedDb = new Proxy(db, {
    get(target, key) {
      if (key === "prepare") return (query: string) => wrap(target.prepare(query));
      if (key === "batch") {
        return async (statements: D1PreparedStatement[]) => {
          spendD1(statements.length);
          return target.batch(statements.map((s) => real.get(s) ?? s));
        };
      }
      if (key === "exec") {
        return async (query: string) => {
          spendD1(1);
          return target.exec(query);
        };
      }
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const refusingFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    if (counts.subrequests + 1 > limits.subrequests) {
      counts.refusals += 1;
      throw new Error(SUBREQUEST_REFUSAL);
    }
    counts.subrequests += 1;
    return inner(input, init);
  }) as typeof fetch;
  return { db: wrappedDb, fetch: refusingFetch, counts };
}

import type { Cost, InvocationBudget } from "~/lib/platform/budget.server";

// The one rule for what a failed D1 call means (ADR 087): transient (retried within the budget when safe to
// repeat), constraint (the caller's signal), bug (a 500, never hidden as a 503), or unavailable (a 503).

export type D1FailureKind = "transient" | "constraint" | "bug" | "unavailable";

// Marked "retry" in Cloudflare's D1 error list (developers.cloudflare.com/d1/observability/debug-d1); matched
// on the message, as Cloudflare's own retry example does.
const TRANSIENT =
  /Network connection lost|storage caused object to be reset|reset because its code was updated|transient issue on remote node|exceeded its memory limit and was reset|overloaded\. Requests queued for too long/i;
// "constraint failed" from SQLite's own checks; SQLITE_CONSTRAINT alone from a trigger's RAISE (the console form cap, migration 0047).
const CONSTRAINT = /constraint failed|SQLITE_CONSTRAINT/i;
const BUG = /SQLITE_ERROR|syntax error|no such (?:table|column)|D1_TYPE_ERROR|D1_COLUMN_NOTFOUND|too many SQL variables|incomplete input/i;

// workerd's "Too many subrequests." and D1's "Too many API requests by single worker invocation."
const BUDGET_REFUSAL = /too many subrequests|too many api requests by single worker invocation/i;

function messageOf(error: unknown): string {
  return String(error instanceof Error ? error.message : error);
}

/** True when `error` is the platform refusing for a spent per-invocation budget, not a receiver failing. */
export function isBudgetRefusal(error: unknown): boolean {
  return error instanceof Error && BUDGET_REFUSAL.test(error.message);
}

/** True when a trigger refused the write with RAISE(ABORT, `reason`) (migrations name their reasons). */
export function isRaisedBy(error: unknown, reason: string): boolean {
  return classifyD1Failure(error) === "constraint" && messageOf(error).includes(reason);
}

/** What a D1 call's failure means. Never throws. */
export function classifyD1Failure(error: unknown): D1FailureKind {
  if (isBudgetRefusal(error)) return "unavailable";
  const message = messageOf(error);
  if (CONSTRAINT.test(message)) return "constraint";
  if (BUG.test(message)) return "bug";
  if (TRANSIENT.test(message)) return "transient";
  return "unavailable";
}

/** True when `error` is a constraint refusing a write; with `on`, only that table.column list's (e.g. "submissions.id"). */
export function isConstraintFailure(error: unknown, on?: string): boolean {
  const message = messageOf(error);
  if (on === undefined) return CONSTRAINT.test(message);
  // The whole column list, so "submissions.id" is not read into "submissions.idempotency_key".
  return new RegExp(`constraint failed: ${on.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?::|$)`, "i").test(message);
}

export interface RetryOptions {
  attempts?: number;
  budget?: InvocationBudget | null;
  cost?: Cost;
  /** Waits before try `n` (2, 3, …); the default backs off 25 ms, 75 ms, … with jitter. Tests inject their own. */
  wait?: (attempt: number) => Promise<void>;
  onRetry?: (error: unknown, attempt: number) => void;
}

const defaultWait = (attempt: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, 25 * 3 ** (attempt - 2) * (0.5 + Math.random() / 2)));

/** Runs `tryOnce` again while it fails transiently and tries and budget allow; only for calls safe to repeat. Throws the last failure. */
export async function withD1Retry<T>(tryOnce: (attempt: number) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const { attempts = 3, budget = null, cost = { d1Queries: 1 }, wait = defaultWait, onRetry } = options;
  for (let attempt = 1; ; attempt++) {
    try {
      return await tryOnce(attempt);
    } catch (error) {
      const again = attempt < attempts && classifyD1Failure(error) === "transient" && (budget?.trySpend(cost) ?? true);
      if (!again) throw error;
      onRetry?.(error, attempt + 1);
      await wait(attempt + 1);
    }
  }
}

export type D1Attempt<T> = { ok: true; value: T } | { ok: false; kind: D1FailureKind; error: unknown };

/** `withD1Retry` as a returned union, for modules that answer with a code instead of throwing. Never throws. */
export async function tryD1<T>(
  tryOnce: (attempt: number) => Promise<T>,
  options: RetryOptions & { retry?: boolean } = {},
): Promise<D1Attempt<T>> {
  try {
    const value = options.retry === false ? await tryOnce(1) : await withD1Retry(tryOnce, options);
    return { ok: true, value };
  } catch (error) {
    return { ok: false, kind: classifyD1Failure(error), error };
  }
}

/** A read-only statement (SELECT, WITH … SELECT, EXPLAIN): safe to repeat whatever happened to the first try. */
export function isReadOnlySql(query: string): boolean {
  return /^\s*(?:SELECT|EXPLAIN|WITH\b(?![\s\S]*\b(?:INSERT|UPDATE|DELETE|REPLACE)\b))/i.test(query);
}

/** storage_unavailable, logged with `what`; a bug is thrown instead, so our mistakes never read as a busy database. */
export function storageCodeOf(failure: { kind: D1FailureKind; error: unknown }, what: string): "storage_unavailable" {
  if (failure.kind === "bug") throw failure.error;
  console.error(`${what} failed: ${failure.kind}`, failure.error);
  return "storage_unavailable";
}

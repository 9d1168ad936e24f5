import type { ErrorCode } from "~/lib/http/errors";
import type { Cost, InvocationBudget } from "~/lib/platform/budget.server";
import { classifyD1Failure, isBudgetRefusal, storageCodeOf } from "~/lib/storage/d1-failure.server";
import { requeueDeadChunk, type DeadFilter } from "~/lib/storage/delivery-requeue.server";

// Bulk replay of dead deliveries (ADR 072): chunks while the budget lasts, the rest counted, so the caller shows
// progress and asks again. Requeued rows keep their webhook-ids.

/** Rows requeued per statement: small enough for one D1 statement's time, large enough to finish soon. */
export const REPLAY_CHUNK = 100;
export const REPLAY_CHUNK_COST = { d1Queries: 2 } as const satisfies Cost;

export type ReplayResult = { ok: true; requeued: number; remaining: number } | { ok: false; code: ErrorCode };

/** Requeues dead deliveries matching `filter` while the budget lasts. Fails with storage_unavailable; a bug throws (500). */
export async function replayDead(
  db: D1Database,
  filter: DeadFilter,
  { nowMs, budget, chunk = REPLAY_CHUNK }: { nowMs: number; budget: InvocationBudget; chunk?: number },
): Promise<ReplayResult> {
  let requeued = 0;
  let remaining: number | null = null;
  try {
    while (remaining !== 0 && budget.trySpend(REPLAY_CHUNK_COST)) {
      const done = await requeueDeadChunk(db, filter, nowMs, chunk);
      requeued += done.requeued;
      remaining = done.remaining;
      if (done.requeued === 0) break;
    }
  } catch (error) {
    // The platform's refusal after some chunks went is progress, not failure: report it, ask again.
    if (!(isBudgetRefusal(error) && remaining !== null)) {
      return { ok: false, code: storageCodeOf({ kind: classifyD1Failure(error), error }, "replayDead") };
    }
  }
  if (remaining === null) return { ok: false, code: "storage_unavailable" };
  return { ok: true, requeued, remaining };
}

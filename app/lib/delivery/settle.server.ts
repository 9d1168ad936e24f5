import type { AttemptRecord } from "~/lib/sending/attempt.server";
import { kindSpec } from "~/lib/destinations/registry";
import { endedByReceiverStatements, isHookDestination } from "~/lib/hooks/subscriptions.server";
import { recordFailureStatement, recordSuccessStatement } from "~/lib/storage/destination-health.server";
import {
  failedAttemptStatement,
  holdStatement,
  holdWhilePausedStatement,
  logAttemptStatement,
  logHeldOnChangeStatement,
  markDeliveredStatement,
  releaseLeaseStatement,
} from "~/lib/storage/delivery-outcomes.server";
import { type Claim } from "~/lib/storage/deliveries.server";

// How one attempt settles its delivery in one batch: delivered or skipped ends it, a config problem holds it, a
// deleted destination kills it, anything else waits its turn.

/** Waits after attempt 1, 2, …: about 44 h in all, so a receiver down for a day still gets everything. */
export const RETRY_DELAYS_MS = [10e3, 60e3, 300e3, 1_800e3, 7_200e3, 21_600e3, 43_200e3, 86_400e3] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
export const JITTER = 0.2;
/** A held delivery (settings missing or bad) is looked at again this often, so a fix heals it within minutes. */
export const HOLD_RECHECK_MS = 5 * 60_000;

/** The delay before the attempt after `attemptsSoFar` failures, with jitter; null once it is the last. */
export function nextRetryDelayMs(attemptsSoFar: number, random: () => number = Math.random): number | null {
  if (attemptsSoFar >= MAX_ATTEMPTS) return null;
  const base = RETRY_DELAYS_MS[attemptsSoFar - 1];
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}

export type SettleOutcome = "delivered" | "retrying" | "dead" | "released";

/** Failed attempts in a row, across a destination's deliveries, that pause it (ADR 071). */
export const PAUSE_AFTER_FAILURES = 10;
export const PROBE_INTERVAL_MS = 5 * 60_000;
// Not a held setting, a skipped confirmation, a 429 (Retry-After paces those), a gone destination or the platform's refusal.
const COUNTS_TOWARD_PAUSE = new Set(["timeout", "network", "redirect", "http_status", "rejected"]);
const pausable = (claim: Claim) => kindSpec(claim.destination)?.pausable !== false;

export interface Settled {
  statements: D1PreparedStatement[];
  outcome: SettleOutcome;
  healthAt: number | null;
  nextAttemptMs: number | null;
}

/** The attempt's log row and its delivery's new state, and which way it went. Pure. */
export function settleStatements(
  db: D1Database,
  claim: Claim,
  owner: string,
  record: AttemptRecord,
  nowMs: number,
  random?: () => number,
  pauseAfter = PAUSE_AFTER_FAILURES,
): Settled {
  if (record.error === "budget") {
    // The platform refused the call for a spent allowance: the receiver saw nothing, the next run takes the row.
    return { statements: [releaseLeaseStatement(db, claim, owner)], outcome: "released", healthAt: null, nextAttemptMs: null };
  }
  const attemptedAt = new Date(nowMs).toISOString();
  const log = logAttemptStatement(db, claim.id, attemptedAt, record);
  if (record.delivered) {
    // A success always wins, even if this drainer's lease lapsed: the receiver has it.
    const done = markDeliveredStatement(db, claim.id, attemptedAt, record.error === "skipped" ? record.detail : null);
    const healthy = record.error === null && pausable(claim) ? [recordSuccessStatement(db, claim.formId, claim.destination)] : [];
    return { statements: [log, done, ...healthy], outcome: "delivered", healthAt: null, nextAttemptMs: null };
  }
  if (record.error === "config") {
    // Held, keeping the attempt budget; logged only when the reason changes.
    const logOnChange = logHeldOnChangeStatement(db, claim.id, attemptedAt, record.latencyMs, record.detail);
    const hold = holdStatement(db, claim, owner, nowMs + HOLD_RECHECK_MS, record.detail);
    return { statements: [logOnChange, hold], outcome: "retrying", healthAt: null, nextAttemptMs: nowMs + HOLD_RECHECK_MS };
  }
  const attempts = claim.attempts + 1;
  // A destination that says it no longer exists is dead now, not after 44 h of asking again.
  const scheduled = record.error === "gone" ? null : nextRetryDelayMs(attempts, random);
  // A 429's Retry-After is honoured: the next attempt is never sooner than it asks.
  const delay = scheduled === null ? null : Math.max(scheduled, record.retryAfterMs ?? 0);
  const retry = failedAttemptStatement(db, claim, owner, {
    attempts,
    dead: delay === null,
    nextAttemptMs: nowMs + (delay ?? 0),
    reason: record.detail,
  });
  const outcome = delay === null ? "dead" : "retrying";
  const nextAttemptMs = delay === null ? null : nowMs + delay;
  if (!pausable(claim) || !COUNTS_TOWARD_PAUSE.has(record.error ?? "")) {
    // A subscriber's 410 unsubscribes it (REST hooks, ADR 123), audited in this same batch.
    const ended = record.error === "gone" && isHookDestination(claim.destination) ? endedByReceiverStatements(db, claim, nowMs) : [];
    return { statements: [log, retry, ...ended], outcome, healthAt: null, nextAttemptMs };
  }
  // The failure is counted first, so the one that pauses the destination is itself held, not counted.
  const failure = recordFailureStatement(db, {
    formId: claim.formId,
    destination: claim.destination,
    error: record.detail,
    nowMs,
    threshold: pauseAfter,
    probeMs: PROBE_INTERVAL_MS,
  });
  const held = holdWhilePausedStatement(db, claim, owner, record.detail);
  return { statements: [log, failure, retry, held], outcome, healthAt: 1, nextAttemptMs };
}

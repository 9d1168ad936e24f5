import sql, { join } from "sql-template-tag";
import { judgeRateLimits, type RateRule, type RateVerdict } from "~/lib/http/rate-limit.server";
import { skippedIds, type ConfirmationStatements } from "~/lib/storage/confirmation-limits.server";
import { rateLimitStatement, verdictOfRows, withinRateLimits } from "~/lib/storage/rate-limits.server";
import { runBatch } from "~/lib/storage/sql.server";
import { plannedState } from "~/lib/storage/submission-state.server";
import {
  guardedSubmissionInsert,
  isKeyConflict,
  keyHolderStatement,
  keyIsKnown,
  keyIsNew,
  parseKeyHolder,
  type KeyHolder,
  type NewSubmission,
  type StoredSubmission,
} from "~/lib/storage/submissions.server";

// The one D1 round trip of an accepted submission (docs/decisions/012), one transaction: count the
// hit, insert the submission only if every count is within its limit and the key is new, its outbox
// rows beside it, then read who holds the key. A refused batch leaves the count and nothing else.

export type StoreOutcome =
  /** `settled`: outbox rows the batch settled at once (a confirmation over its limits), not to be attempted. */
  | { kind: "stored"; stored: StoredSubmission; verdict: RateVerdict; settled: ReadonlySet<string> }
  /** The key was already used with the same fields: the first answer is this id. */
  | { kind: "replayed"; id: string; verdict: RateVerdict }
  /** The key was already used with other fields (or before fingerprints existed). */
  | { kind: "key_reused"; verdict: RateVerdict }
  | { kind: "rate_limited"; verdict: RateVerdict }
  | { kind: "failed" };

/** A submission's outbox rows (leasedOutbox), each inserted only beside it. */
export interface OutboxBatch {
  deliveries: readonly D1PreparedStatement[];
  /** The confirmation's statements when it is held to its limits in this batch. */
  confirmation: ConfirmationStatements | null;
}

export interface AcceptBatchInput {
  rules: readonly RateRule[];
  nowMs: number;
  submission: NewSubmission;
  key: string | null;
  fingerprint: string | null;
  outbox: OutboxBatch;
}

/** Counts, claims and stores in one batch. D1 failures come back as `failed`; it never throws. */
export async function storeInOneTrip(db: D1Database, input: AcceptBatchInput): Promise<StoreOutcome> {
  const { rules, nowMs, submission, key, fingerprint, outbox } = input;
  const conditions = [withinRateLimits(rules, nowMs), ...(key ? [keyIsNew(submission.formId, key)] : [])];
  const onlyIf = join(
    conditions.map((condition) => sql`(${condition})`),
    " AND ",
  );
  const state = plannedState({
    quarantined: Boolean(submission.quarantineReason),
    deliveries: outbox.deliveries.length + (outbox.confirmation ? 1 : 0),
  });
  const insert = guardedSubmissionInsert(db, submission, { nowMs, idempotencyKey: key, fingerprint, onlyIf, state });
  try {
    const done = await runBatch(db, {
      count: rules.length > 0 ? rateLimitStatement(db, rules, nowMs) : null,
      insert: insert.statement,
      deliveries: outbox.deliveries,
      confirmation: outbox.confirmation,
      holder: key ? keyHolderStatement(db, submission.formId, key) : null,
    });
    const verdict = verdictOfRows(rules, done.count?.results ?? [], nowMs);
    if (done.insert.results.length > 0) {
      const settled = new Set(done.confirmation ? skippedIds(done.confirmation.queue) : []);
      return { kind: "stored", stored: insert.stored, verdict, settled };
    }
    if (!verdict.ok) return { kind: "rate_limited", verdict };
    const holder = done.holder ? parseKeyHolder(done.holder.results) : null;
    if (holder) return answerFor(holder, fingerprint, verdict);
    console.error(`accept batch stored nothing and found no reason (form ${submission.formId})`);
    return { kind: "failed" };
  } catch (error) {
    if (key && isKeyConflict(error)) return settleKeyConflict(db, submission.formId, key, fingerprint, nowMs);
    console.error("accept batch failed:", error);
    return { kind: "failed" };
  }
}

/**
 * The look-up a repeat pays when the provider says its token was spent: counts the hit only if the key
 * is known, and reads its holder; null for an unknown key, so junk with spent tokens writes nothing.
 */
export async function findReplay(
  db: D1Database,
  {
    rules,
    nowMs,
    formId,
    key,
    fingerprint,
  }: { rules: readonly RateRule[]; nowMs: number; formId: string; key: string; fingerprint: string },
): Promise<Exclude<StoreOutcome, { kind: "stored" }> | null> {
  try {
    const done = await runBatch(db, {
      count: rules.length > 0 ? rateLimitStatement(db, rules, nowMs, keyIsKnown(formId, key)) : null,
      holder: keyHolderStatement(db, formId, key),
    });
    const holder = parseKeyHolder(done.holder.results);
    if (!holder) return null;
    const verdict = verdictOfRows(rules, done.count?.results ?? [], nowMs);
    if (!verdict.ok) return { kind: "rate_limited", verdict };
    return answerFor(holder, fingerprint, verdict);
  } catch (error) {
    console.error("idempotency look-up failed:", error);
    return { kind: "failed" };
  }
}

function answerFor(
  holder: KeyHolder,
  fingerprint: string | null,
  verdict: RateVerdict,
): Extract<StoreOutcome, { kind: "replayed" | "key_reused" }> {
  return holder.fingerprint !== null && holder.fingerprint === fingerprint
    ? { kind: "replayed", id: holder.id, verdict }
    : { kind: "key_reused", verdict };
}

// The guard makes the unique index unreachable while D1 runs batches one at a time; should a twin
// still win (a database that interleaves), its row is read in one more trip and answered as above.
async function settleKeyConflict(
  db: D1Database,
  formId: string,
  key: string,
  fingerprint: string | null,
  nowMs: number,
): Promise<StoreOutcome> {
  const holder = await keyHolderStatement(db, formId, key)
    .all()
    .then(({ results }) => parseKeyHolder(results))
    .catch(() => null);
  if (!holder) return { kind: "failed" };
  // The rolled-back batch counted nothing; the verdict is the unlimited one rather than a guess.
  return answerFor(holder, fingerprint, judgeRateLimits([], [], nowMs));
}

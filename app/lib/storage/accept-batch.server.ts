import sql, { join } from "sql-template-tag";
import { z } from "zod";
import { judgeRateLimits, type RateRule, type RateVerdict } from "~/lib/http/rate-limit.server";
import { skippedIds, type ConfirmationStatements } from "~/lib/storage/confirmation-limits.server";
import { rateLimitStatement, verdictOfRows, withinRateLimits } from "~/lib/storage/rate-limits.server";
import { classifyD1Failure, storageCodeOf, tryD1, type RetryOptions } from "~/lib/storage/d1-failure.server";
import { claimsOf, type Claim } from "~/lib/storage/deliveries.server";
import { countStatements, parseRows, runBatch, statement } from "~/lib/storage/sql.server";
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

// The one D1 round trip of an accepted submission (ADR 012), one transaction: count the hit, insert the submission
// if every count is within its limit and the key is new, its outbox rows beside it, read who holds the key.

export type StoreOutcome =
  /** `settled`: rows settled at once, never attempted; `added`: rows the batch made itself (subscriptions, ADR 123). */
  | {
      kind: "stored";
      stored: StoredSubmission;
      verdict: RateVerdict;
      settled: ReadonlySet<string>;
      added: readonly Claim[];
      beside: readonly D1Result[];
    }
  /** The key was already used with the same fields: the first answer is this id. */
  | { kind: "replayed"; id: string; verdict: RateVerdict }
  /** The key was already used with other fields (or before fingerprints existed). */
  | { kind: "key_reused"; verdict: RateVerdict }
  | { kind: "rate_limited"; verdict: RateVerdict }
  | { kind: "failed" };

/** A submission's outbox rows (leasedOutbox), each inserted only beside it. */
export interface OutboxBatch {
  deliveries: readonly D1PreparedStatement[];
  confirmation: ConfirmationStatements | null;
  /** One INSERT … SELECT … RETURNING of rows for the form's subscriptions (at most 50), when any may exist. */
  hooks?: D1PreparedStatement | null;
}

export interface AcceptBatchInput {
  rules: readonly RateRule[];
  nowMs: number;
  submission: NewSubmission;
  key: string | null;
  fingerprint: string | null;
  outbox: OutboxBatch;
  beside?: readonly D1PreparedStatement[];
}

/**
 * Counts, claims and stores in one batch, retried within `retry` (ADR 087): the submission's id and its key's
 * guard let it commit at most once. D1 failures come back as `failed`; it throws only for a bug in our SQL.
 */
export async function storeInOneTrip(db: D1Database, input: AcceptBatchInput, retry: RetryOptions = {}): Promise<StoreOutcome> {
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
  const parts = {
    count: rules.length > 0 ? rateLimitStatement(db, rules, nowMs) : null,
    insert: insert.statement,
    deliveries: outbox.deliveries,
    confirmation: outbox.confirmation,
    beside: input.beside ?? [],
    hooks: outbox.hooks ?? null,
    holder: key ? keyHolderStatement(db, submission.formId, key) : null,
  };
  let retried = false;
  const cost = { d1Queries: countStatements(parts) };
  retry.budget?.spend(cost); // the first try; retries ask the budget first
  const done = await tryD1(() => runBatch(db, parts), {
    ...retry,
    cost,
    onRetry: (error) => {
      retried = true;
      console.warn(`accept batch of ${submission.id} failed transiently, trying again:`, error);
    },
  });
  if (!done.ok) {
    if (key && isKeyConflict(done.error)) return settleKeyConflict(db, submission.formId, key, fingerprint, nowMs);
    // After an unknown outcome, the repeat meets the first try's rows: it committed.
    if (retried && done.kind === "constraint") return recoverCommitted(db, insert.stored, nowMs);
    storageCodeOf(done, "accept batch");
    return { kind: "failed" };
  }
  const result = done.value;
  const verdict = verdictOfRows(rules, result.count?.results ?? [], nowMs);
  if (result.insert.results.length > 0) {
    const settled = new Set(result.confirmation ? skippedIds(result.confirmation.queue) : []);
    return { kind: "stored", stored: insert.stored, verdict, settled, added: claimsOf(result.hooks?.results ?? []), beside: result.beside };
  }
  const holder = result.holder ? parseKeyHolder(result.holder.results) : null;
  // A repeat whose key is held by this very submission: the first try committed.
  if (holder && holder.id === submission.id) return recoverCommitted(db, insert.stored, nowMs);
  if (!verdict.ok) return { kind: "rate_limited", verdict };
  if (holder) return answerFor(holder, fingerprint, verdict);
  console.error(`accept batch stored nothing and found no reason (form ${submission.formId})`);
  return { kind: "failed" };
}

const IdRowSchema = z.object({ id: z.string() });

async function readCommitted(db: D1Database, id: string): Promise<{ settled: Set<string> } | null> {
  const done = await runBatch(db, {
    row: statement(db, sql`SELECT id FROM submissions WHERE id = ${id}`),
    settled: statement(db, sql`SELECT id FROM deliveries WHERE submission_id = ${id} AND status <> 'pending'`),
  });
  if (done.row.results.length === 0) return null;
  return { settled: new Set(parseRows(IdRowSchema, done.settled.results).map((row) => row.id)) };
}

/** "stored" for a first try that committed though its answer was lost; its verdict was lost too: the unlimited one. */
async function recoverCommitted(db: D1Database, stored: StoredSubmission, nowMs: number): Promise<StoreOutcome> {
  const found = await tryD1(() => readCommitted(db, stored.id), { cost: { d1Queries: 2 } });
  if (!found.ok || !found.value) {
    if (!found.ok) storageCodeOf(found, "reading back a committed submission");
    return { kind: "failed" };
  }
  // Rows the lost batch made itself are not known here: their leases lapse to the drain.
  return { kind: "stored", stored, verdict: judgeRateLimits([], [], nowMs), settled: found.value.settled, added: [], beside: [] };
}

/** The look-up a repeat with a spent token pays; null for an unknown key, so junk with spent tokens writes nothing. */
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
    // It counts a hit, so a transient failure is not repeated (the count may have committed).
    storageCodeOf({ kind: classifyD1Failure(error), error }, "idempotency look-up");
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

// Should a twin still win over the guard (a database that interleaves), its row is read in one more trip.
async function settleKeyConflict(
  db: D1Database,
  formId: string,
  key: string,
  fingerprint: string | null,
  nowMs: number,
): Promise<StoreOutcome> {
  const read = await tryD1(() => keyHolderStatement(db, formId, key).all());
  const holder = read.ok ? parseKeyHolder(read.value.results) : null;
  if (!read.ok) storageCodeOf(read, "reading the holder of a conflicting key");
  if (!holder) return { kind: "failed" };
  // The rolled-back batch counted nothing; the verdict is the unlimited one rather than a guess.
  return answerFor(holder, fingerprint, judgeRateLimits([], [], nowMs));
}

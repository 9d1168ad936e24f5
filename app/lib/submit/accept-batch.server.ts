import {
  judgeRateLimits,
  rateLimitStatement,
  verdictOfRows,
  withinRateLimits,
  type RateRule,
  type RateVerdict,
  type SqlCondition,
} from "~/lib/http/rate-limit.server";
import { guardedSubmissionInsert, isKeyConflict, type NewSubmission, type StoredSubmission } from "~/lib/storage/submissions.server";
import { keyHolderStatement, keyIsKnown, keyIsNew, parseKeyHolder, type KeyHolder } from "~/lib/submit/idempotency.server";

// The one D1 round trip of an accepted submission (docs/decisions/012): a single batch, which D1 runs
// as one transaction, that counts the hit against the per-IP limits, then inserts the submission (with
// its idempotency key and fingerprint) only if every count is within its limit and the key is new,
// then its outbox rows, then reads back who holds the key. A batch that refuses leaves the count and
// nothing else: no submission, no key, no outbox row.

export type StoreOutcome =
  /** `settled`: outbox rows the batch settled at once (a confirmation over its limits), not to be attempted. */
  | { kind: "stored"; stored: StoredSubmission; verdict: RateVerdict; settled: ReadonlySet<string> }
  /** The key was already used with the same fields: the first answer is this id. */
  | { kind: "replayed"; id: string; verdict: RateVerdict }
  /** The key was already used with other fields (or before fingerprints existed). */
  | { kind: "key_reused"; verdict: RateVerdict }
  | { kind: "rate_limited"; verdict: RateVerdict }
  | { kind: "failed" };

export interface AcceptBatchInput {
  rules: readonly RateRule[];
  nowMs: number;
  submission: NewSubmission & { id: string };
  key: string | null;
  fingerprint: string | null;
  /** The submission's outbox rows (leasedOutbox in app/lib/delivery/outbox.server.ts). */
  outbox: readonly D1PreparedStatement[];
}

/** Counts, claims and stores in one batch. D1 failures come back as `failed`; it never throws. */
export async function storeInOneTrip(db: D1Database, input: AcceptBatchInput): Promise<StoreOutcome> {
  const { rules, nowMs, submission, key, fingerprint, outbox } = input;
  const guard = allOf([withinRateLimits(rules, nowMs), ...(key ? [keyIsNew(submission.formId, key)] : [])]);
  const insert = guardedSubmissionInsert(db, submission, { idempotencyKey: key, fingerprint, onlyIf: guard });
  const statements: D1PreparedStatement[] = [];
  // The outbox INSERTs only insert beside a stored submission (outbox.server.ts), so a refused
  // submission leaves none behind.
  if (rules.length > 0) statements.push(rateLimitStatement(db, rules, nowMs));
  const insertAt = statements.push(insert.statement) - 1;
  statements.push(...outbox);
  if (key) statements.push(keyHolderStatement(db, submission.formId, key));
  try {
    const results = await db.batch<Record<string, unknown>>(statements);
    const verdict = verdictOfRows(rules, rules.length > 0 ? results[insertAt - 1].results : [], nowMs);
    if (results[insertAt].results.length > 0) {
      const outboxRows = results.slice(insertAt + 1, insertAt + 1 + outbox.length).flatMap((result) => result.results);
      const settled = new Set(outboxRows.filter((row) => row.status === "delivered").map((row) => String(row.id)));
      return { kind: "stored", stored: insert.stored, verdict, settled };
    }
    if (!verdict.ok) return { kind: "rate_limited", verdict };
    const holder = key ? parseKeyHolder(results[results.length - 1].results[0]) : null;
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
 * The look-up a repeat pays when its token was already spent (the provider said timeout-or-duplicate):
 * one batch that counts the hit only if the key is known, and reads its holder. Null when the key is
 * unknown (the spent token is then the answer), so junk with spent tokens writes nothing.
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
    const counted = rules.length > 0 ? [rateLimitStatement(db, rules, nowMs, keyIsKnown(formId, key))] : [];
    const results = await db.batch<Record<string, unknown>>([...counted, keyHolderStatement(db, formId, key)]);
    const holder = parseKeyHolder(results[results.length - 1].results[0]);
    if (!holder) return null;
    const verdict = verdictOfRows(rules, rules.length > 0 ? results[0].results : [], nowMs);
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
    .first<Record<string, unknown>>()
    .then((row) => parseKeyHolder(row ?? undefined))
    .catch(() => null);
  if (!holder) return { kind: "failed" };
  // The rolled-back batch counted nothing; the verdict is the unlimited one rather than a guess.
  return answerFor(holder, fingerprint, judgeRateLimits([], [], nowMs));
}

function allOf(conditions: readonly SqlCondition[]): SqlCondition {
  return {
    sql: (n) => {
      let next = n;
      return conditions
        .map((condition) => {
          const sql = condition.sql(next);
          next += condition.params.length;
          return `(${sql})`;
        })
        .join(" AND ");
    },
    params: conditions.flatMap((condition) => condition.params),
  };
}

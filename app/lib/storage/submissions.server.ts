import type { FieldValue } from "~/forms/schema";
import type { SqlCondition } from "~/lib/http/rate-limit.server";
import { searchTextOf } from "~/lib/storage/search-text.server";

// Storage of accepted submissions in D1. Bindings come in as arguments; rows read back are parsed
// before use because D1 hands back untyped records.

export interface VerificationSummary {
  hostname: string;
  action: string;
  challengeTs: string;
}

export interface NewSubmission {
  /** Chosen by the caller when other statements (the outbox rows) must refer to it; else random. */
  id?: string;
  formId: string;
  /** The form version the fields were validated against (LiveForm.version). */
  formVersion?: string | null;
  fields: Record<string, FieldValue>;
  verification: VerificationSummary | null;
  quarantineReason?: string;
  /** A console "Send a test": sample values for one destination. */
  test?: boolean;
}

export interface StoredSubmission {
  id: string;
  formId: string;
  /** Null for submissions stored before versions were recorded. */
  formVersion: string | null;
  fields: Record<string, FieldValue>;
  receivedAt: string;
  status: "accepted" | "quarantined";
  quarantineReason: string | null;
  verification: VerificationSummary | null;
  test: boolean;
}

export type StoreResult =
  /** `stored` is the submission exactly as a later read of its row would return it. */
  | { ok: true; id: string; receivedAt: string; stored: StoredSubmission }
  /** keyConflict: a concurrent request with the same idempotency key stored first; nothing was written. */
  | { ok: false; code: "storage_unavailable"; keyConflict?: boolean };

export interface StoreOptions {
  /** Stored in the submission's own row, so the key exists exactly when its submission does. */
  idempotencyKey?: string | null;
  /** More writes that must land with the submission or not at all: its outbox rows. */
  also?: readonly D1PreparedStatement[];
}

/** The row one submission becomes, column by column, as D1 will hand it back. */
function submissionRow(
  id: string,
  receivedAt: string,
  s: NewSubmission,
  idempotencyKey: string | null,
  fingerprint: string | null = null,
): Record<string, unknown> {
  return {
    id,
    form_id: s.formId,
    fields: JSON.stringify(s.fields),
    received_at: receivedAt,
    status: s.quarantineReason ? "quarantined" : "accepted",
    quarantine_reason: s.quarantineReason ?? null,
    verify_hostname: s.verification?.hostname ?? null,
    verify_action: s.verification?.action ?? null,
    verify_challenge_ts: s.verification?.challengeTs ?? null,
    idempotency_key: idempotencyKey,
    idempotency_fingerprint: fingerprint,
    form_version: s.formVersion ?? null,
    test: s.test ? 1 : 0,
    search_text: searchTextOf(s.fields),
  };
}

const COLUMNS = [
  "id",
  "form_id",
  "fields",
  "received_at",
  "status",
  "quarantine_reason",
  "verify_hostname",
  "verify_action",
  "verify_challenge_ts",
  "idempotency_key",
  "idempotency_fingerprint",
  "form_version",
  "test",
  "search_text",
];
const PLACEHOLDERS = COLUMNS.map((_, i) => `?${i + 1}`).join(", ");
const INSERT_SUBMISSION = `INSERT INTO submissions (${COLUMNS.join(", ")}) VALUES (${PLACEHOLDERS})`;

export interface GuardedInsert {
  /** Inserts the row only when `onlyIf` holds; RETURNING id says whether it did. */
  statement: D1PreparedStatement;
  /** The submission as a later read of its row would return it, should the insert happen. */
  stored: StoredSubmission;
  receivedAt: string;
}

/**
 * The INSERT of one submission, guarded by a condition evaluated inside the same batch (the rate
 * limits counted just before it, and that its idempotency key is new). Pure: it never touches D1.
 */
export function guardedSubmissionInsert(
  db: D1Database,
  submission: NewSubmission & { id: string },
  { idempotencyKey, fingerprint, onlyIf }: { idempotencyKey: string | null; fingerprint: string | null; onlyIf: SqlCondition },
): GuardedInsert {
  const receivedAt = new Date().toISOString();
  const row = submissionRow(submission.id, receivedAt, submission, idempotencyKey, fingerprint);
  const statement = db
    .prepare(`INSERT INTO submissions (${COLUMNS.join(", ")}) SELECT ${PLACEHOLDERS} WHERE ${onlyIf.sql(COLUMNS.length + 1)} RETURNING id`)
    .bind(...COLUMNS.map((column) => row[column]), ...onlyIf.params);
  return { statement, stored: parseSubmissionRow(row), receivedAt };
}

/**
 * Stores one submission (its idempotency key is a column of its row) and `also` (its outbox rows)
 * atomically: all or nothing. Returns storage_unavailable instead of throwing when D1 fails.
 */
export async function storeSubmission(
  db: D1Database,
  submission: NewSubmission,
  { idempotencyKey = null, also = [] }: StoreOptions = {},
): Promise<StoreResult> {
  const id = submission.id ?? crypto.randomUUID();
  const receivedAt = new Date().toISOString();
  const row = submissionRow(id, receivedAt, submission, idempotencyKey);
  const insert = db.prepare(INSERT_SUBMISSION).bind(...COLUMNS.map((column) => row[column]));
  try {
    // One statement is atomic by itself; a batch only when the outbox rows must land with it.
    if (also.length === 0) await insert.run();
    else await db.batch([insert, ...also]);
    return { ok: true, id, receivedAt, stored: parseSubmissionRow(row) };
  } catch (error) {
    if (isKeyConflict(error)) return { ok: false, code: "storage_unavailable", keyConflict: true };
    console.error("storeSubmission failed:", error);
    return { ok: false, code: "storage_unavailable" };
  }
}

/** Reads one submission of one form, or null. */
export async function getSubmission(db: D1Database, formId: string, id: string): Promise<StoredSubmission | null> {
  const row = await db
    .prepare("SELECT * FROM submissions WHERE id = ?1 AND form_id = ?2")
    .bind(id, formId)
    .first<Record<string, unknown>>();
  return row ? parseSubmissionRow(row) : null;
}

export function parseSubmissionRow(row: Record<string, unknown>): StoredSubmission {
  const fields = JSON.parse(String(row.fields)) as unknown;
  return {
    id: String(row.id),
    formId: String(row.form_id),
    formVersion: typeof row.form_version === "string" ? row.form_version : null,
    fields: typeof fields === "object" && fields !== null ? (fields as Record<string, FieldValue>) : {},
    receivedAt: String(row.received_at),
    status: row.status === "quarantined" ? "quarantined" : "accepted",
    quarantineReason: typeof row.quarantine_reason === "string" ? row.quarantine_reason : null,
    verification:
      typeof row.verify_hostname === "string"
        ? {
            hostname: row.verify_hostname,
            action: String(row.verify_action ?? ""),
            challengeTs: String(row.verify_challenge_ts ?? ""),
          }
        : null,
    test: row.test === 1,
  };
}

/** True when a D1 error is the idempotency key's unique index refusing a second submission. */
export function isKeyConflict(error: unknown): boolean {
  const text = String(error instanceof Error ? error.message : error);
  return /UNIQUE constraint failed: submissions\.form_id, submissions\.idempotency_key/i.test(text);
}

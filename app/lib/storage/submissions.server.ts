import sql, { raw, type Sql } from "sql-template-tag";
import { z } from "zod";
import type { FieldValue } from "~/forms/schema";
import { searchTextOf } from "~/lib/storage/search-text.server";
import { parseRows, statement } from "~/lib/storage/sql.server";
import { isConstraintFailure } from "~/lib/storage/d1-failure.server";
import { SUBMISSION_STATES, type SubmissionState } from "~/lib/storage/submission-states";

// The submissions table; the idempotency key and fingerprint are its columns (ADR 013), so a key exists exactly with its submission.

export interface VerificationSummary {
  hostname: string;
  action: string;
  challengeTs: string;
}

export interface NewSubmission {
  id: string;
  formId: string;
  formVersion?: string | null;
  fields: Record<string, FieldValue>;
  verification: VerificationSummary | null;
  quarantineReason?: string;
  test?: boolean;
  /** The language the sender saw the form in (migration 0040); the confirmation speaks it. */
  lang?: string | null;
}

export interface StoredSubmission {
  id: string;
  formId: string;
  formVersion: string | null;
  fields: Record<string, FieldValue>;
  receivedAt: string;
  status: "accepted" | "quarantined";
  quarantineReason: string | null;
  verification: VerificationSummary | null;
  test: boolean;
  /** Null (or absent) for submissions stored before languages were recorded (migration 0040): the form's own. */
  lang?: string | null;
}

/** A row's stored fields from their JSON text: an object, else none. Never throws. */
export function parseStoredFields(text: string): Record<string, FieldValue> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, FieldValue>) : {};
  } catch {
    return {};
  }
}
const FieldsSchema = z.string().transform(parseStoredFields);

export const SubmissionRowSchema = z.object({
  id: z.string(),
  form_id: z.string(),
  fields: FieldsSchema,
  received_at: z.string(),
  status: z.enum(["accepted", "quarantined"]),
  quarantine_reason: z.string().nullable(),
  verify_hostname: z.string().nullable(),
  verify_action: z.string().nullable(),
  verify_challenge_ts: z.string().nullable(),
  idempotency_key: z.string().nullable(),
  idempotency_fingerprint: z.string().nullable(),
  search_text: z.string().nullable(),
  form_version: z.string().nullable(),
  test: z.number().int(),
  lang: z.string().nullish(),
  state: z.enum(SUBMISSION_STATES).nullable(),
});
type SubmissionRow = z.infer<typeof SubmissionRowSchema>;

export const StoredRowSchema = SubmissionRowSchema.omit({ search_text: true, idempotency_key: true, idempotency_fingerprint: true });
/** The `s.`-columns a StoredSubmission needs: the folded search text and idempotency columns are not carried per row. */
export const STORED_COLUMNS = raw(
  Object.keys(StoredRowSchema.shape)
    .map((column) => `s.${column}`)
    .join(", "),
);
type StoredRow = z.infer<typeof StoredRowSchema>;

/** A parsed row as the app uses it. */
export function storedSubmissionOf(row: StoredRow): StoredSubmission {
  return {
    id: row.id,
    formId: row.form_id,
    formVersion: row.form_version,
    fields: row.fields,
    receivedAt: row.received_at,
    status: row.status,
    quarantineReason: row.quarantine_reason,
    verification:
      row.verify_hostname === null
        ? null
        : { hostname: row.verify_hostname, action: row.verify_action ?? "", challengeTs: row.verify_challenge_ts ?? "" },
    test: row.test === 1,
    lang: row.lang ?? null,
  };
}

export const StoredSubmissionSchema = SubmissionRowSchema.transform(storedSubmissionOf);

export interface GuardedInsert {
  statement: D1PreparedStatement;
  stored: StoredSubmission;
}

/** The INSERT of one submission when `onlyIf` holds inside the same batch (limits, a new key). Pure. */
export function guardedSubmissionInsert(
  db: D1Database,
  submission: NewSubmission,
  {
    nowMs,
    idempotencyKey,
    fingerprint,
    onlyIf,
    state,
  }: {
    nowMs: number;
    idempotencyKey: string | null;
    fingerprint: string | null;
    onlyIf: Sql;
    state: SubmissionState;
  },
): GuardedInsert {
  const { id, formId, fields, verification, quarantineReason, formVersion, test, lang } = submission;
  const row: SubmissionRow = {
    id,
    form_id: formId,
    fields,
    received_at: new Date(nowMs).toISOString(),
    status: quarantineReason ? "quarantined" : "accepted",
    quarantine_reason: quarantineReason ?? null,
    verify_hostname: verification?.hostname ?? null,
    verify_action: verification?.action ?? null,
    verify_challenge_ts: verification?.challengeTs ?? null,
    idempotency_key: idempotencyKey,
    idempotency_fingerprint: fingerprint,
    search_text: searchTextOf(fields),
    form_version: formVersion ?? null,
    test: test ? 1 : 0,
    lang: lang ?? null,
    state,
  };
  const insert = sql`INSERT INTO submissions (id, form_id, fields, received_at, status, quarantine_reason, verify_hostname,
      verify_action, verify_challenge_ts, idempotency_key, idempotency_fingerprint, search_text, form_version, test, lang, state)
    SELECT ${row.id}, ${row.form_id}, ${JSON.stringify(row.fields)}, ${row.received_at}, ${row.status}, ${row.quarantine_reason},
      ${row.verify_hostname}, ${row.verify_action}, ${row.verify_challenge_ts}, ${row.idempotency_key},
      ${row.idempotency_fingerprint}, ${row.search_text}, ${row.form_version}, ${row.test}, ${row.lang}, ${row.state}
    WHERE ${onlyIf} RETURNING id`;
  return { statement: statement(db, insert), stored: storedSubmissionOf(row) };
}

/** True when a D1 error is the idempotency key's unique index refusing a second submission. */
export function isKeyConflict(error: unknown): boolean {
  return isConstraintFailure(error, "submissions.form_id, submissions.idempotency_key");
}

/** Reads one submission of one form, or null. D1 errors throw. */
export async function getSubmission(db: D1Database, formId: string, id: string): Promise<StoredSubmission | null> {
  const row = await statement(db, sql`SELECT * FROM submissions WHERE id = ${id} AND form_id = ${formId}`).first();
  return row ? StoredSubmissionSchema.parse(row) : null;
}

/** The submissions with these ids, by id (one read). D1 errors throw. */
export async function loadSubmissions(db: D1Database, ids: readonly string[]): Promise<Map<string, StoredSubmission>> {
  const query = sql`SELECT * FROM submissions WHERE id IN (SELECT value FROM json_each(${JSON.stringify([...new Set(ids)])}))`;
  const { results } = await statement(db, query).all();
  return new Map(parseRows(StoredSubmissionSchema, results).map((submission) => [submission.id, submission]));
}

/** SQL true when no submission of the form holds the key yet. */
export function keyIsNew(formId: string, key: string): Sql {
  return sql`NOT EXISTS (SELECT 1 FROM submissions WHERE form_id = ${formId} AND idempotency_key = ${key})`;
}

/** SQL true when a submission of the form holds the key (whatever its fingerprint). */
export function keyIsKnown(formId: string, key: string): Sql {
  return sql`EXISTS (SELECT 1 FROM submissions WHERE form_id = ${formId} AND idempotency_key = ${key})`;
}

export type KeyHolder = { id: string; fingerprint: string | null };

const KeyHolderRowSchema = SubmissionRowSchema.pick({ id: true, idempotency_fingerprint: true });

/** Reads the holder of a key (parseKeyHolder reads its rows). Pure. */
export function keyHolderStatement(db: D1Database, formId: string, key: string): D1PreparedStatement {
  return statement(db, sql`SELECT id, idempotency_fingerprint FROM submissions WHERE form_id = ${formId} AND idempotency_key = ${key}`);
}

/** The key's holder from keyHolderStatement's rows, or null when no submission holds it. */
export function parseKeyHolder(rows: readonly unknown[]): KeyHolder | null {
  const [row] = parseRows(KeyHolderRowSchema, rows);
  return row ? { id: row.id, fingerprint: row.idempotency_fingerprint } : null;
}

const StatusRowSchema = SubmissionRowSchema.pick({ form_id: true, status: true });

/** A submission's form and status, or null. D1 errors throw. */
export async function submissionStatus(db: D1Database, id: string): Promise<{ formId: string; status: StoredSubmission["status"] } | null> {
  const row = await statement(db, sql`SELECT form_id, status FROM submissions WHERE id = ${id}`).first();
  if (!row) return null;
  const { form_id: formId, status } = StatusRowSchema.parse(row);
  return { formId, status };
}

/** Flips a quarantined submission to accepted; `meta.changes` is 0 when it was not in quarantine. */
export function releaseStatement(db: D1Database, id: string): D1PreparedStatement {
  return statement(db, sql`UPDATE submissions SET status = 'accepted' WHERE id = ${id} AND status = 'quarantined'`);
}

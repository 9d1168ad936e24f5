import { SUBMISSION_ID_FIELD } from "~/lib/field-names";

// Idempotency keys: a repeat of a submission with the same key gets the first answer and stores
// nothing. The key is a column of its submission (migration 0005), so it is stored by the same
// INSERT; the lookup rides in the rate-limit batch, and the accept path still makes two D1 round trips
// (docs/decisions/002-rate-limit-storage.md, 007-accept-path-costs.md).

const MAX_KEY_LENGTH = 255;
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export type KeyResult = { ok: true; key: string | null } | { ok: false; code: "idempotency_key_invalid" };

/** The key of a request: the Idempotency-Key header, else the rendered form's _gp_sid, else none. */
export function readIdempotencyKey(request: Request, fields: Record<string, unknown>): KeyResult {
  const header = request.headers.get("Idempotency-Key");
  if (header !== null) {
    const key = header.trim();
    return key.length > 0 && key.length <= MAX_KEY_LENGTH && VISIBLE_ASCII.test(key)
      ? { ok: true, key }
      : { ok: false, code: "idempotency_key_invalid" };
  }
  const sid = fields[SUBMISSION_ID_FIELD];
  if (sid === undefined || sid === "") return { ok: true, key: null };
  return typeof sid === "string" && UUID.test(sid) ? { ok: true, key: sid } : { ok: false, code: "idempotency_key_invalid" };
}

/** Finds the submission a key already produced; its one row (if any) has `submission_id`. */
export function lookupKeyStatement(db: D1Database, formId: string, key: string): D1PreparedStatement {
  return db.prepare("SELECT id AS submission_id FROM submissions WHERE form_id = ?1 AND idempotency_key = ?2").bind(formId, key);
}

/** The submission id in a lookup's rows, or null. */
export function replayedSubmissionId(rows: readonly unknown[]): string | null {
  const row = rows[0] as { submission_id?: unknown } | undefined;
  return typeof row?.submission_id === "string" ? row.submission_id : null;
}

/** Looks a key up on its own: only after a store batch lost the race to a concurrent twin. */
export async function findKeyedSubmission(db: D1Database, formId: string, key: string): Promise<string | null> {
  const row = await lookupKeyStatement(db, formId, key).all();
  return replayedSubmissionId(row.results);
}

/** True when a D1 error is the idempotency key's unique index refusing a second submission. */
export function isKeyConflict(error: unknown): boolean {
  const text = String(error instanceof Error ? error.message : error);
  return /UNIQUE constraint failed: submissions\.form_id, submissions\.idempotency_key/i.test(text);
}

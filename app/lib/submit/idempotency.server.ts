import type { FieldValue } from "~/forms/schema";
import type { SqlCondition } from "~/lib/http/rate-limit.server";
import { SUBMISSION_ID_FIELD } from "~/lib/submit/field-names";

// Idempotency keys (the IETF Idempotency-Key draft; docs/decisions/013): a repeat of a submission with
// the same key and the same fields gets the first answer and stores nothing; the same key with other
// fields is refused. The key and its request's fingerprint are columns of the submission, written by
// the same guarded INSERT, so a key exists exactly when its submission does.

const MAX_KEY_LENGTH = 255;
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const encoder = new TextEncoder();

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
  return readSubmissionIdKey(fields);
}

/** The key of a post from Gatepost's own page: its rendered _gp_sid (which its stamp signs), else none. */
export function readSubmissionIdKey(fields: Record<string, unknown>): KeyResult {
  const sid = fields[SUBMISSION_ID_FIELD];
  if (sid === undefined || sid === "") return { ok: true, key: null };
  return typeof sid === "string" && UUID.test(sid) ? { ok: true, key: sid } : { ok: false, code: "idempotency_key_invalid" };
}

/**
 * The fingerprint a key is bound to: SHA-256 over the form id and the validated values, in the form's
 * field order. The Turnstile token is left out (a retry after a lost answer carries a new one), and so
 * are the page's stamp and trap fields: the stamp is signed over the submission id, which is the key
 * itself, so it can differ only where the key does.
 */
export async function fingerprintRequest(formId: string, values: Record<string, FieldValue>): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(JSON.stringify([formId, values])));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** SQL true when no submission of the form holds the key yet. */
export function keyIsNew(formId: string, key: string): SqlCondition {
  return {
    sql: (n) => `NOT EXISTS (SELECT 1 FROM submissions WHERE form_id = ?${n} AND idempotency_key = ?${n + 1})`,
    params: [formId, key],
  };
}

/** SQL true when a submission of the form holds the key (whatever its fingerprint). */
export function keyIsKnown(formId: string, key: string): SqlCondition {
  return {
    sql: (n) => `EXISTS (SELECT 1 FROM submissions WHERE form_id = ?${n} AND idempotency_key = ?${n + 1})`,
    params: [formId, key],
  };
}

/** Reads the submission holding a key: its id and the fingerprint it was stored with. */
export function keyHolderStatement(db: D1Database, formId: string, key: string): D1PreparedStatement {
  return db
    .prepare("SELECT id, idempotency_fingerprint AS fingerprint FROM submissions WHERE form_id = ?1 AND idempotency_key = ?2")
    .bind(formId, key);
}

export type KeyHolder = { id: string; fingerprint: string | null };

/** Parses a row of keyHolderStatement. */
export function parseKeyHolder(row: Record<string, unknown> | undefined): KeyHolder | null {
  if (!row || typeof row.id !== "string") return null;
  return { id: row.id, fingerprint: typeof row.fingerprint === "string" ? row.fingerprint : null };
}

import { sha256Hex } from "~/lib/crypto/digest";
import { SUBMISSION_ID_FIELD } from "~/lib/forms/field-names";

// Idempotency keys (ADR 013): the same key with the same fields gets the first answer; with other fields, a refusal.

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
  return readSubmissionIdKey(fields);
}

/** The key of a post from Gatepost's own page: its rendered _gp_sid (which its stamp signs), else none. */
export function readSubmissionIdKey(fields: Record<string, unknown>): KeyResult {
  const sid = fields[SUBMISSION_ID_FIELD];
  if (sid === undefined || sid === "") return { ok: true, key: null };
  return typeof sid === "string" && UUID.test(sid) ? { ok: true, key: sid } : { ok: false, code: "idempotency_key_invalid" };
}

/** SHA-256 of the form id and validated values; not the token (a retry has a new one) nor the stamp (it signs the key). */
export async function fingerprintRequest(formId: string, values: Readonly<Record<string, unknown>>): Promise<string> {
  return sha256Hex(JSON.stringify([formId, values]));
}

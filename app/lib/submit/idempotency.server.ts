import { SUBMISSION_ID_FIELD } from "~/lib/submit/field-names";
import type { RateLimitLookup } from "~/lib/http/rate-limit.server";

// Idempotency keys: a repeat of a submission with the same key gets the first answer and stores
// nothing. The key is a column of its submission (migration 0005), so it is stored by the same
// INSERT; the lookup rides in the rate-limit statement, and the accept path still makes two D1
// round trips (docs/decisions/002-rate-limit-storage.md, 007-accept-path-costs.md).

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

/** The submission a key already produced, as a lookup for the rate-limit statement (its id or null). */
export function keyLookup(formId: string, key: string): RateLimitLookup {
  return {
    sql: (n) => `(SELECT id FROM submissions WHERE form_id = ?${n} AND idempotency_key = ?${n + 1})`,
    params: [formId, key],
  };
}

/** Looks a key up on its own: only after a store batch lost the race to a concurrent twin. */
export async function findKeyedSubmission(db: D1Database, formId: string, key: string): Promise<string | null> {
  const lookup = keyLookup(formId, key);
  const row = await db.prepare(`SELECT ${lookup.sql(1)} AS id`).bind(...lookup.params).first<{ id: unknown }>();
  return typeof row?.id === "string" ? row.id : null;
}

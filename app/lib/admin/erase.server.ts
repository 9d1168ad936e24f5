import { z } from "zod";
import { encodeBase64Url } from "~/lib/crypto/base64url";
import { hmacKey } from "~/lib/crypto/hmac-key.server";
import { purgeSubmissions } from "~/lib/storage/purge.server";

// Erasure for a data request: every submission that holds the given e-mail address in any field,
// across every form, goes with its deliveries and attempts. Matching is on whole field values, so
// "ada@example.org" never erases "grace.ada@example.org", and both sides go through the same Unicode
// case folding (foldEmail) in the Worker: SQLite's lower() folds only ASCII, so "ÉLODIE@…" would
// never meet "élodie@…" in SQL. D1 narrows to text values holding an "@"; the Worker compares.

const EMAIL = /^[^\s@]+@[^\s@]+$/;
const MAX_EMAIL_LENGTH = 254;

/**
 * What a person would call the same address: compatibility-normalised (full-width letters, ligatures)
 * and case-folded. Upper then lower folds what lower alone misses (ß and SS, final sigma).
 */
export function foldEmail(raw: string): string {
  return raw.trim().normalize("NFKC").toUpperCase().toLowerCase().normalize("NFC");
}

/** The address trimmed and folded, or null when it is not one whole e-mail address. */
export function normaliseEmail(raw: string): string | null {
  const email = foldEmail(raw);
  return EMAIL.test(email) && email.length <= MAX_EMAIL_LENGTH ? email : null;
}

/** The erase form's address field: one whole address, folded; anything else fails to parse. */
export const EraseEmailSchema = z
  .string()
  .max(1000)
  .transform((raw, ctx) => normaliseEmail(raw) ?? (ctx.addIssue({ code: "custom", message: "not an e-mail address" }), z.NEVER));

// Candidates: text values with an "@" no longer than an address can be (plus surrounding spaces).
const CANDIDATES_SQL = `SELECT s.id, s.form_id, s.received_at, j.value AS value FROM submissions s, json_each(s.fields) j
  WHERE j.type = 'text' AND instr(j.value, '@') > 0 AND length(j.value) <= ${MAX_EMAIL_LENGTH * 2}
  ORDER BY s.received_at, s.id`;
const CandidateSchema = z.object({ id: z.string(), form_id: z.string(), received_at: z.string(), value: z.string() });

/** The submissions an erase would remove, for the confirmation step; `email` is folded. D1 errors throw. */
export async function findByEmail(db: D1Database, email: string) {
  const { results } = await db.prepare(CANDIDATES_SQL).all();
  const seen = new Set<string>();
  const matches: Array<{ id: string; formId: string; receivedAt: string }> = [];
  for (const row of z.array(CandidateSchema).parse(results)) {
    if (seen.has(row.id) || foldEmail(row.value) !== email) continue;
    seen.add(row.id);
    matches.push({ id: row.id, formId: row.form_id, receivedAt: row.received_at });
  }
  return matches;
}

/**
 * The audit log's tag for an erased address: an HMAC under a server secret, so someone holding a
 * guessed address (and the log) cannot confirm it was erased. null when no secret is configured:
 * then the log records that an erase happened, and no tag at all.
 */
export async function emailTag(email: string, secret: string | undefined): Promise<string | null> {
  if (!secret) return null;
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret), new TextEncoder().encode(`gatepost-erase:${email}`));
  return encodeBase64Url(new Uint8Array(mac).slice(0, 16));
}

/**
 * Deletes what matches `email` now, files first, with the statement `record(count)` returns (the
 * audit row) in the rows' batch. Returns how many submissions went. D1 and R2 errors throw.
 */
export async function eraseByEmail(
  db: D1Database,
  bucket: R2Bucket | null,
  email: string,
  record: (count: number) => D1PreparedStatement,
): Promise<number> {
  const ids = (await findByEmail(db, email)).map((m) => m.id);
  const results = await purgeSubmissions(db, bucket, [{ ids }], [record(ids.length)]);
  return results[2].meta.changes ?? ids.length;
}

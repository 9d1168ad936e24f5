import { z } from "zod";
import { encodeBase64Url } from "~/lib/crypto/base64";
import { hmacKey } from "~/lib/crypto/hmac-key.server";
import { listEmailCandidates } from "~/lib/storage/email-candidates.server";
import { purgeFiles, purgeStatements } from "~/lib/storage/purge.server";
import { runBatch } from "~/lib/storage/sql.server";

// Erasure for a data request: every submission holding the address as a whole field value goes. Both sides are
// folded in the Worker (foldEmail): SQLite's lower() folds only ASCII.

const EMAIL = /^[^\s@]+@[^\s@]+$/;
const MAX_EMAIL_LENGTH = 254;

/** The address as a person would compare it: NFKC, then upper then lower case (which folds ß and SS). */
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

const ERASE_CHUNK = 100;

/** The submissions an erase would remove, for the confirmation step; `email` is folded. D1 errors throw. */
export async function findByEmail(db: D1Database, email: string) {
  const seen = new Set<string>();
  const matches: Array<{ id: string; formId: string; receivedAt: string }> = [];
  // Candidates from the search index, a page at a time (email-candidates.server.ts).
  for (let after: number | null = 0; after !== null;) {
    const page = await listEmailCandidates(db, email, MAX_EMAIL_LENGTH * 2, after);
    for (const { id, formId, receivedAt, value } of page.candidates) {
      if (seen.has(id) || foldEmail(value) !== email) continue;
      seen.add(id);
      matches.push({ id, formId, receivedAt });
    }
    after = page.next;
  }
  return matches.sort((a, b) => a.receivedAt.localeCompare(b.receivedAt) || a.id.localeCompare(b.id));
}

/** The audit row's tag for an erased address: an HMAC, so a guessed address cannot be confirmed; null without a secret. */
export async function emailTag(email: string, secret: string | undefined): Promise<string | null> {
  if (!secret) return null;
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret), new TextEncoder().encode(`gatepost-erase:${email}`));
  return encodeBase64Url(new Uint8Array(mac).slice(0, 16));
}

/** Deletes what matches `email` in chunks, files first, the last batch with its audit row; returns how many. D1 and R2 errors throw. */
export async function eraseByEmail(
  db: D1Database,
  bucket: R2Bucket | null,
  email: string,
  record: (count: number) => D1PreparedStatement,
): Promise<number> {
  const ids = (await findByEmail(db, email)).map((m) => m.id);
  let deleted = 0;
  for (let start = 0; start < ids.length || start === 0; start += ERASE_CHUNK) {
    const chunk = ids.slice(start, start + ERASE_CHUNK);
    const last = start + ERASE_CHUNK >= ids.length;
    await purgeFiles(db, bucket, [{ ids: chunk }]);
    const done = await runBatch(db, { purged: purgeStatements(db, { ids: chunk }), audit: last ? record(ids.length) : null });
    deleted += done.purged.submissions.results.length;
  }
  return deleted;
}

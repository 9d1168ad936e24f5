import { purgeStatements } from "~/lib/storage/purge.server";

// Erasure for a data request: every submission that holds the given e-mail address in any field,
// across every form, goes with its deliveries and attempts. Matching is exact (case-insensitive,
// trimmed) on whole field values, so "ada@example.org" never erases "grace.ada@example.org".

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** The address trimmed and lower-cased, or null when it is not one whole e-mail address. */
export function normaliseEmail(raw: string): string | null {
  const email = raw.trim().toLowerCase();
  return EMAIL.test(email) && email.length <= 254 ? email : null;
}

const MATCH_SQL = `SELECT s.id, s.form_id, s.received_at FROM submissions s
  WHERE EXISTS (SELECT 1 FROM json_each(s.fields) j WHERE j.type = 'text' AND lower(trim(j.value)) = ?1)
  ORDER BY s.received_at`;

/** The submissions an erase would remove, for the confirmation step. D1 errors throw. */
export async function findByEmail(db: D1Database, email: string) {
  const { results } = await db.prepare(MATCH_SQL).bind(email).all<{ id: string; form_id: string; received_at: string }>();
  return results.map((r) => ({ id: r.id, formId: r.form_id, receivedAt: r.received_at }));
}

/** A short, non-reversible tag for the audit log, so the log never keeps the erased address itself. */
export async function emailTag(email: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`gatepost-erase:${email}`));
  return [...new Uint8Array(digest).slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Deletes what matches `email` now, with the statement `record(count)` returns (the audit row) in the
 * same batch. Returns how many submissions went. D1 errors throw.
 */
export async function eraseByEmail(db: D1Database, email: string, record: (count: number) => D1PreparedStatement): Promise<number> {
  const ids = (await findByEmail(db, email)).map((m) => m.id);
  const results = await db.batch([...purgeStatements(db, { ids }), record(ids.length)]);
  return results[2].meta.changes ?? ids.length;
}

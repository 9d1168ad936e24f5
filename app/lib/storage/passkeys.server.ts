import sql from "sql-template-tag";
import { z } from "zod";
import { parseRows, statement } from "~/lib/storage/sql.server";

// The person_passkeys and webauthn_challenges tables (docs/decisions/130). What the keys mean is
// @simplewebauthn's business (people/passkeys.server.ts); here they are only stored and found.

const PasskeyRowSchema = z.object({
  id: z.string(),
  person_id: z.string(),
  name: z.string(),
  public_key: z.string(),
  counter: z.number(),
  transports: z.string().nullable(),
  created_at: z.number(),
  last_used_at: z.number().nullable(),
});
export type PasskeyRow = z.infer<typeof PasskeyRowSchema>;

/** The most passkeys one person keeps. */
export const MAX_PASSKEYS = 10;
/** How long a challenge may be answered. */
export const CHALLENGE_TTL_MS = 5 * 60_000;

/** A person's passkeys, oldest first. D1 errors throw. */
export async function listPasskeys(db: D1Database, personId: string): Promise<PasskeyRow[]> {
  const { results } = await statement(db, sql`SELECT * FROM person_passkeys WHERE person_id = ${personId} ORDER BY created_at`).all();
  return parseRows(PasskeyRowSchema, results);
}

/** One passkey by credential id, only while its person is live. D1 errors throw. */
export async function findPasskey(db: D1Database, id: string): Promise<PasskeyRow | null> {
  const row = await statement(
    db,
    sql`SELECT k.* FROM person_passkeys k JOIN people p ON p.id = k.person_id WHERE k.id = ${id} AND p.revoked_at IS NULL`,
  ).first();
  return row ? PasskeyRowSchema.parse(row) : null;
}

/** Stores a challenge (clearing expired ones in the same batch). D1 errors throw. */
export async function storeChallenge(
  db: D1Database,
  challenge: { challenge: string; purpose: "register" | "sign-in"; personId: string | null; nowMs: number },
): Promise<void> {
  await db.batch([
    statement(db, sql`DELETE FROM webauthn_challenges WHERE expires_at <= ${challenge.nowMs}`),
    statement(
      db,
      sql`INSERT INTO webauthn_challenges (challenge, purpose, person_id, expires_at)
          VALUES (${challenge.challenge}, ${challenge.purpose}, ${challenge.personId}, ${challenge.nowMs + CHALLENGE_TTL_MS})`,
    ),
  ]);
}

/** Spends a challenge: true once, when it was handed out for `purpose` (and `personId`) and is unexpired. D1 errors throw. */
export async function spendChallenge(
  db: D1Database,
  spend: { challenge: string; purpose: "register" | "sign-in"; personId: string | null; nowMs: number },
): Promise<boolean> {
  const row = await statement(
    db,
    sql`DELETE FROM webauthn_challenges WHERE challenge = ${spend.challenge} AND purpose = ${spend.purpose}
          AND person_id IS ${spend.personId} AND expires_at > ${spend.nowMs} RETURNING challenge`,
  ).first();
  return row !== null;
}

/** Adds a passkey while its person has fewer than MAX_PASSKEYS; RETURNING id. */
export function insertPasskeyStatement(
  db: D1Database,
  key: { id: string; personId: string; name: string; publicKey: string; counter: number; transports: string | null; nowMs: number },
): D1PreparedStatement {
  return statement(
    db,
    sql`INSERT INTO person_passkeys (id, person_id, name, public_key, counter, transports, created_at)
        SELECT ${key.id}, ${key.personId}, ${key.name}, ${key.publicKey}, ${key.counter}, ${key.transports}, ${key.nowMs}
        WHERE (SELECT COUNT(*) FROM person_passkeys WHERE person_id = ${key.personId}) < ${MAX_PASSKEYS}
        RETURNING id`,
  );
}

/** Notes a passkey's use and its authenticator's new counter. */
export function usePasskeyStatement(db: D1Database, id: string, counter: number, nowMs: number): D1PreparedStatement {
  return statement(db, sql`UPDATE person_passkeys SET counter = ${counter}, last_used_at = ${nowMs} WHERE id = ${id}`);
}

/** Renames one of a person's passkeys; RETURNING id. */
export function renamePasskeyStatement(db: D1Database, personId: string, id: string, name: string): D1PreparedStatement {
  return statement(db, sql`UPDATE person_passkeys SET name = ${name} WHERE id = ${id} AND person_id = ${personId} RETURNING id`);
}

/** Deletes one of a person's passkeys; RETURNING id. */
export function deletePasskeyStatement(db: D1Database, personId: string, id: string): D1PreparedStatement {
  return statement(db, sql`DELETE FROM person_passkeys WHERE id = ${id} AND person_id = ${personId} RETURNING id`);
}

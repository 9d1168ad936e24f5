import sql from "sql-template-tag";
import { z } from "zod";
import { parseRows, statement } from "~/lib/storage/sql.server";

// The people table and its invitations (docs/decisions/129). Here, beneath auth, because every request
// of a person's session or token reads their row: a removed person is refused on their next request.

const PersonRowSchema = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(["admin", "viewer"]),
  password_hash: z.string().nullable(),
  created_at: z.number(),
  created_by: z.string(),
  joined_at: z.number().nullable(),
  last_sign_in_at: z.number().nullable(),
  revoked_at: z.number().nullable(),
});
export type PersonRow = z.infer<typeof PersonRowSchema>;

const COLUMNS = sql`id, email, role, password_hash, created_at, created_by, joined_at, last_sign_in_at, revoked_at`;

/** The most people (live or invited) one deployment keeps. */
export const MAX_PEOPLE = 200;

/** The sub of a person's session: "person:<id>". */
export function personSubject(id: string): string {
  return `person:${id}`;
}

/** The live (not removed) person with this id, or null. D1 errors throw. */
export async function findLivePerson(db: D1Database, id: string): Promise<PersonRow | null> {
  const row = await statement(db, sql`SELECT ${COLUMNS} FROM people WHERE id = ${id} AND revoked_at IS NULL`).first();
  return row ? PersonRowSchema.parse(row) : null;
}

/** The live person with this (lower-cased) address, or null. D1 errors throw. */
export async function findLivePersonByEmail(db: D1Database, email: string): Promise<PersonRow | null> {
  const row = await statement(db, sql`SELECT ${COLUMNS} FROM people WHERE email = ${email} AND revoked_at IS NULL`).first();
  return row ? PersonRowSchema.parse(row) : null;
}

/** Everyone, live first, then by address. D1 errors throw. */
export async function listPeople(db: D1Database): Promise<PersonRow[]> {
  const { results } = await statement(
    db,
    sql`SELECT ${COLUMNS} FROM people ORDER BY revoked_at IS NOT NULL, email LIMIT ${MAX_PEOPLE * 2}`,
  ).all();
  return parseRows(PersonRowSchema, results);
}

/** How many live admins have joined (signed in with their own password or passkey). D1 errors throw. */
export async function countJoinedAdmins(db: D1Database): Promise<number> {
  const row = await statement(
    db,
    sql`SELECT COUNT(*) AS n FROM people WHERE role = 'admin' AND revoked_at IS NULL AND joined_at IS NOT NULL`,
  ).first();
  return z.object({ n: z.number() }).parse(row).n;
}

/** The INSERT of an invited person, only while the address has no live person and under MAX_PEOPLE; RETURNING id. */
export function insertPersonStatement(
  db: D1Database,
  person: { id: string; email: string; role: "admin" | "viewer"; actor: string; nowMs: number },
): D1PreparedStatement {
  return statement(
    db,
    sql`INSERT INTO people (id, email, role, created_at, created_by)
        SELECT ${person.id}, ${person.email}, ${person.role}, ${person.nowMs}, ${person.actor}
        WHERE NOT EXISTS (SELECT 1 FROM people WHERE email = ${person.email} AND revoked_at IS NULL)
          AND (SELECT COUNT(*) FROM people WHERE revoked_at IS NULL) < ${MAX_PEOPLE}
        RETURNING id`,
  );
}

/** The INSERT of an invitation for a person just inserted (nothing when they were not). */
export function insertInvitationStatement(
  db: D1Database,
  invitation: { personId: string; hash: string; nowMs: number; expiresMs: number },
): D1PreparedStatement {
  return statement(
    db,
    sql`INSERT INTO person_invitations (token_hash, person_id, created_at, expires_at)
        SELECT ${invitation.hash}, ${invitation.personId}, ${invitation.nowMs}, ${invitation.expiresMs}
        WHERE changes() > 0`,
  );
}

/** The live person a usable (unused, unexpired) invitation stands for, or null. D1 errors throw. */
export async function findInvited(db: D1Database, hash: string, nowMs: number): Promise<PersonRow | null> {
  const row = await statement(
    db,
    sql`SELECT ${COLUMNS} FROM people WHERE revoked_at IS NULL AND id = (
          SELECT person_id FROM person_invitations WHERE token_hash = ${hash} AND used_at IS NULL AND expires_at > ${nowMs})`,
  ).first();
  return row ? PersonRowSchema.parse(row) : null;
}

/**
 * Follows an invitation: the person's password is set and the link spent, in one transaction; RETURNING
 * the person (no row for a used, expired or withdrawn link).
 */
export function acceptInvitationStatements(
  db: D1Database,
  accept: { hash: string; passwordHash: string | null; nowMs: number },
): [D1PreparedStatement, D1PreparedStatement] {
  return [
    statement(
      db,
      sql`UPDATE people SET password_hash = COALESCE(${accept.passwordHash}, password_hash), joined_at = ${accept.nowMs},
            last_sign_in_at = ${accept.nowMs}
          WHERE revoked_at IS NULL AND id = (SELECT person_id FROM person_invitations
            WHERE token_hash = ${accept.hash} AND used_at IS NULL AND expires_at > ${accept.nowMs})
          RETURNING ${COLUMNS}`,
    ),
    statement(db, sql`UPDATE person_invitations SET used_at = ${accept.nowMs} WHERE token_hash = ${accept.hash} AND used_at IS NULL`),
  ];
}

/** Parses a RETURNING row of acceptInvitationStatements. */
export function personOfRows(rows: readonly unknown[]): PersonRow | null {
  return rows.length > 0 ? PersonRowSchema.parse(rows[0]) : null;
}

/**
 * The guard of a change that would leave no admin: `actorId` may not remove or demote themselves while
 * they are the last live admin who has joined (the owner password still opens, but cannot be assumed set).
 */
const notLastAdmin = (actorId: string | null) =>
  sql`NOT (id = ${actorId ?? ""} AND role = 'admin'
        AND (SELECT COUNT(*) FROM people WHERE role = 'admin' AND revoked_at IS NULL AND joined_at IS NOT NULL) <= 1)`;

/** Changes a live person's role; RETURNING id says whether it changed. */
export function changeRoleStatement(
  db: D1Database,
  change: { id: string; role: "admin" | "viewer"; actorId: string | null },
): D1PreparedStatement {
  const guard = change.role === "viewer" ? sql`AND ${notLastAdmin(change.actorId)}` : sql``;
  return statement(
    db,
    sql`UPDATE people SET role = ${change.role} WHERE id = ${change.id} AND revoked_at IS NULL AND role != ${change.role} ${guard} RETURNING id`,
  );
}

/**
 * Removes a person and ends at once what was theirs: sessions, API tokens and open invitations. The
 * first statement's RETURNING id says whether they were removed; the audit line goes right after it.
 */
export function revokePersonStatements(
  db: D1Database,
  revoke: { id: string; actorId: string | null; nowMs: number },
): { person: D1PreparedStatement; after: D1PreparedStatement[] } {
  // A refused removal (the last admin) ends nothing.
  const gone = sql`(SELECT revoked_at FROM people WHERE id = ${revoke.id}) IS NOT NULL`;
  return {
    person: statement(
      db,
      sql`UPDATE people SET revoked_at = ${revoke.nowMs}
          WHERE id = ${revoke.id} AND revoked_at IS NULL AND ${notLastAdmin(revoke.actorId)} RETURNING id`,
    ),
    after: [
      statement(db, sql`DELETE FROM admin_sessions WHERE json_extract(data, '$.sub') = ${personSubject(revoke.id)} AND ${gone}`),
      statement(
        db,
        sql`UPDATE admin_api_tokens SET revoked_at = ${revoke.nowMs} WHERE person_id = ${revoke.id} AND revoked_at IS NULL AND ${gone}`,
      ),
      statement(
        db,
        sql`UPDATE person_invitations SET used_at = ${revoke.nowMs} WHERE person_id = ${revoke.id} AND used_at IS NULL AND ${gone}`,
      ),
    ],
  };
}

/** Notes a person's sign-in (the console shows when each last signed in). */
export function touchSignInStatement(db: D1Database, id: string, nowMs: number): D1PreparedStatement {
  return statement(db, sql`UPDATE people SET last_sign_in_at = ${nowMs} WHERE id = ${id} AND revoked_at IS NULL`);
}

/** The newest person with this (lower-cased) address, live or removed, or null. D1 errors throw. */
export async function findPersonByEmail(db: D1Database, email: string): Promise<PersonRow | null> {
  const row = await statement(
    db,
    sql`SELECT ${COLUMNS} FROM people WHERE email = ${email} ORDER BY revoked_at IS NOT NULL, revoked_at DESC LIMIT 1`,
  ).first();
  return row ? PersonRowSchema.parse(row) : null;
}

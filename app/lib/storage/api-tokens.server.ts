import sql from "sql-template-tag";
import { z } from "zod";
import { parseRows, statement } from "~/lib/storage/sql.server";

// Admin API tokens (ADR 043): only a SHA-256 is stored; the token is shown once, when it is made.

const TokenRowSchema = z.object({
  id: z.string(),
  name: z.string(),
  role: z.enum(["admin", "viewer"]),
  created_at: z.number(),
  created_by: z.string(),
  last_used_at: z.number().nullable(),
  revoked_at: z.number().nullable(),
});
export type TokenRow = z.infer<typeof TokenRowSchema>;

export const MAX_TOKENS = 50;
/** last_used_at is written at most this often per token, so a busy script does not write on every call. */
const TOUCH_EVERY_MS = 60_000;

/** The INSERT of a new token, only while fewer than MAX_TOKENS are live; RETURNING id says whether it was made. */
export function insertTokenStatement(
  db: D1Database,
  token: { id: string; name: string; role: "admin" | "viewer"; hash: string; actor: string; nowMs: number },
): D1PreparedStatement {
  return statement(
    db,
    sql`INSERT INTO admin_api_tokens (id, name, role, token_hash, created_at, created_by)
        SELECT ${token.id}, ${token.name}, ${token.role}, ${token.hash}, ${token.nowMs}, ${token.actor}
        WHERE (SELECT COUNT(*) FROM admin_api_tokens WHERE revoked_at IS NULL) < ${MAX_TOKENS} RETURNING id`,
  );
}

/** Revokes one token; RETURNING id says whether a live one was revoked. */
export function revokeTokenStatement(db: D1Database, id: string, nowMs: number): D1PreparedStatement {
  return statement(db, sql`UPDATE admin_api_tokens SET revoked_at = ${nowMs} WHERE id = ${id} AND revoked_at IS NULL RETURNING id`);
}

/** Every token, live ones first, newest first. D1 errors throw. */
export async function listTokens(db: D1Database): Promise<TokenRow[]> {
  const { results } = await statement(
    db,
    sql`SELECT id, name, role, created_at, created_by, last_used_at, revoked_at FROM admin_api_tokens
        ORDER BY revoked_at IS NOT NULL, created_at DESC LIMIT 200`,
  ).all();
  return parseRows(TokenRowSchema, results);
}

/** The live token with this hash, noting its use at most once a minute in the same round trip. D1 errors throw. */
export async function useToken(db: D1Database, hash: string, nowMs: number): Promise<TokenRow | null> {
  const [, found] = await db.batch<Record<string, unknown>>([
    statement(
      db,
      sql`UPDATE admin_api_tokens SET last_used_at = ${nowMs}
          WHERE token_hash = ${hash} AND revoked_at IS NULL AND COALESCE(last_used_at, 0) <= ${nowMs - TOUCH_EVERY_MS}`,
    ),
    statement(
      db,
      sql`SELECT id, name, role, created_at, created_by, last_used_at, revoked_at FROM admin_api_tokens
          WHERE token_hash = ${hash} AND revoked_at IS NULL`,
    ),
  ]);
  const rows = parseRows(TokenRowSchema, found.results);
  return rows[0] ?? null;
}

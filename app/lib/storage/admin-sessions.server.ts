import sql from "sql-template-tag";
import { z } from "zod";
import { statement } from "~/lib/storage/sql.server";

// The table behind the console's server-side sessions (ADR 014); the cookie is auth/session.server.ts'.

const SessionRowSchema = z.object({ id: z.string(), data: z.string(), created_at: z.number(), expires_at: z.number() });
const DataRowSchema = SessionRowSchema.pick({ data: true });

/** Stores a new session, clearing expired ones in the same batch so the table never outgrows the live sessions. */
export async function insertSession(
  db: D1Database,
  { id, data, nowMs, expiresMs }: { id: string; data: string; nowMs: number; expiresMs: number },
) {
  await db.batch([
    statement(db, sql`DELETE FROM admin_sessions WHERE expires_at <= ${nowMs}`),
    statement(db, sql`INSERT INTO admin_sessions (id, data, created_at, expires_at) VALUES (${id}, ${data}, ${nowMs}, ${expiresMs})`),
  ]);
}

/** A live session's data (JSON text), or null when there is none or it expired. D1 errors throw. */
export async function readSessionData(db: D1Database, id: string, nowMs: number): Promise<string | null> {
  const row = await statement(db, sql`SELECT data FROM admin_sessions WHERE id = ${id} AND expires_at > ${nowMs}`).first();
  const parsed = DataRowSchema.safeParse(row);
  return parsed.success ? parsed.data.data : null;
}

/** D1 errors throw. */
export async function updateSession(db: D1Database, { id, data, expiresMs }: { id: string; data: string; expiresMs: number }) {
  await statement(db, sql`UPDATE admin_sessions SET data = ${data}, expires_at = ${expiresMs} WHERE id = ${id}`).run();
}

/** D1 errors throw. */
export async function deleteSession(db: D1Database, id: string) {
  await statement(db, sql`DELETE FROM admin_sessions WHERE id = ${id}`).run();
}

/** Ends every password session at once ("sign out everywhere"). Returns how many ended. D1 errors throw. */
export async function deleteAllSessions(db: D1Database): Promise<number> {
  const result = await statement(db, sql`DELETE FROM admin_sessions`).run();
  return result.meta.changes ?? 0;
}

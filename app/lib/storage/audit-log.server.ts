import sql from "sql-template-tag";
import { z } from "zod";
import { clientIp } from "~/lib/http/client-ip.server";
import { parseRows, statement } from "~/lib/storage/sql.server";

// The audit log: each row goes in the same D1 batch as its change, so neither is ever without the other.

const AuditRowSchema = z.object({
  id: z.number(),
  at: z.string(),
  actor: z.string(),
  role: z.string(),
  action: z.string(),
  target: z.string().nullable(),
  detail: z.string().nullable(),
  ip: z.string().nullable(),
});
export type AuditEntry = z.infer<typeof AuditRowSchema>;

/** One audit row by `user`; with `ifChanged`, written only when the statement before it changed a row. */
export function auditStatement(
  db: D1Database,
  entry: {
    user: { id: string; role: string };
    request: Request;
    action: string;
    target?: string | null;
    detail?: Record<string, unknown>;
    nowMs?: number;
    ifChanged?: boolean;
  },
): D1PreparedStatement {
  const at = new Date(entry.nowMs ?? Date.now()).toISOString();
  const detail = entry.detail ? JSON.stringify(entry.detail) : null;
  const row = sql`${at}, ${entry.user.id}, ${entry.user.role}, ${entry.action}, ${entry.target ?? null}, ${detail}, ${clientIp(entry.request)}`;
  return statement(
    db,
    entry.ifChanged
      ? sql`INSERT INTO audit_log (at, actor, role, action, target, detail, ip) SELECT ${row} WHERE changes() > 0`
      : sql`INSERT INTO audit_log (at, actor, role, action, target, detail, ip) VALUES (${row})`,
  );
}

/** The newest audit rows first, parsed. D1 failures and malformed rows throw (the page's boundary shows them). */
export async function listAudit(db: D1Database, limit = 100): Promise<AuditEntry[]> {
  const { results } = await statement(db, sql`SELECT * FROM audit_log ORDER BY id DESC LIMIT ${limit}`).all();
  return parseRows(AuditRowSchema, results);
}

import { z } from "zod";
import type { AdminUser } from "~/lib/admin/auth.server";
import { clientIp } from "~/lib/settings/turnstile.server";

// The audit log. Actions build their audit row as a statement and send it in the same D1 batch as
// the change itself, so a change is never made without its record (or recorded without being made).

export interface AuditEntry {
  id: number;
  at: string;
  actor: string;
  role: string;
  action: string;
  target: string | null;
  detail: string | null;
  ip: string | null;
}

/**
 * The INSERT for one audit row; batch it with the change it records. With `ifChanged`, the row is
 * written only when the statement just before it in the batch changed a row (SQLite's changes()), so a
 * refused change leaves no record of a change that did not happen.
 */
export function auditStatement(
  db: D1Database,
  entry: {
    user: AdminUser;
    request: Request;
    action: string;
    target?: string | null;
    detail?: Record<string, unknown>;
    nowMs?: number;
    ifChanged?: boolean;
  },
): D1PreparedStatement {
  const values = "?1, ?2, ?3, ?4, ?5, ?6, ?7";
  return db
    .prepare(
      entry.ifChanged
        ? `INSERT INTO audit_log (at, actor, role, action, target, detail, ip) SELECT ${values} WHERE changes() > 0`
        : `INSERT INTO audit_log (at, actor, role, action, target, detail, ip) VALUES (${values})`,
    )
    .bind(
      new Date(entry.nowMs ?? Date.now()).toISOString(),
      entry.user.id,
      entry.user.role,
      entry.action,
      entry.target ?? null,
      entry.detail ? JSON.stringify(entry.detail) : null,
      clientIp(entry.request),
    );
}

const AuditEntrySchema = z.object({
  id: z.number(),
  at: z.string(),
  actor: z.string(),
  role: z.string(),
  action: z.string(),
  target: z.string().nullable(),
  detail: z.string().nullable(),
  ip: z.string().nullable(),
});

/** The newest audit rows first, parsed. D1 failures and malformed rows throw (the page's boundary shows them). */
export async function listAudit(db: D1Database, limit = 100): Promise<AuditEntry[]> {
  const { results } = await db
    .prepare("SELECT id, at, actor, role, action, target, detail, ip FROM audit_log ORDER BY id DESC LIMIT ?1")
    .bind(limit)
    .all();
  return z.array(AuditEntrySchema).parse(results);
}

import type { AdminUser } from "~/lib/auth/admin-user.server";
import { auditStatement } from "~/lib/storage/audit-log.server";
import { listDestinationHealth, resumeDestinationStatement, type DestinationHealth } from "~/lib/storage/destination-health.server";

// The console's view of a form's failing destinations and the admin's hand on a pause
// (docs/decisions/071): resuming is audited in the same batch, and only when it changed something.

export interface HealthContext {
  db: D1Database;
  user: AdminUser;
  request: Request;
  nowMs: number;
}

/** The destinations of `formId` with failures on record, paused ones first. D1 errors throw. */
export async function loadDestinationHealth(db: D1Database, formId: string): Promise<DestinationHealth[]> {
  const rows = await listDestinationHealth(db, formId);
  return rows
    .filter((row) => row.pausedAt !== null || row.consecutiveFailures > 0)
    .sort((a, b) => Number(b.pausedAt !== null) - Number(a.pausedAt !== null));
}

/** Resumes a paused destination of `formId`; false when it was not paused. D1 errors throw. */
export async function resumePausedDestination(ctx: HealthContext, formId: string, destination: string): Promise<boolean> {
  const [resumed] = await ctx.db.batch([
    resumeDestinationStatement(ctx.db, formId, destination),
    auditStatement(ctx.db, {
      user: ctx.user,
      request: ctx.request,
      action: "destination.resume",
      target: formId,
      detail: { destination },
      nowMs: ctx.nowMs,
      ifChanged: true,
    }),
  ]);
  return (resumed.meta.changes ?? 0) > 0;
}

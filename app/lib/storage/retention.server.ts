import sql from "sql-template-tag";
import { z } from "zod";
import type { FormDef } from "~/forms/schema";
import { budgetFor, type InvocationBudget } from "~/lib/platform/budget.server";
import { purgeFiles, purgeStatements } from "~/lib/storage/purge.server";
import { parseRows, runBatch, statement } from "~/lib/storage/sql.server";

// Each form keeps submissions `retentionDays` from received_at, then the cron removes them with their deliveries,
// attempts and files (ADR 005), oldest first, in chunks within the budget (ADR 060): no DELETE is unbounded.

const DAY_MS = 86_400_000;
export const RETENTION_CHUNK = 100;
/** Forms one chunk reads at once, so a quiet day's run makes one D1 call, not one per form. */
export const RETENTION_FORMS_PER_CHUNK = 10;
/** What one chunk costs the invocation besides its reads (one per form): the files' read, three DELETEs, one R2 call. */
const PURGE_COST = { d1Queries: 4, subrequests: 1 };
export const RETENTION_CHUNK_COST = { d1Queries: PURGE_COST.d1Queries + RETENTION_FORMS_PER_CHUNK, subrequests: PURGE_COST.subrequests };

export interface RetentionReport {
  formId: string;
  cutoff: string;
  deleted: number;
  more?: boolean;
}

const IdRowSchema = z.object({ id: z.string() });

function expiredStatement(db: D1Database, plan: { formId: string; cutoff: string }): D1PreparedStatement {
  return statement(
    db,
    sql`SELECT id FROM submissions INDEXED BY submissions_form_received_id WHERE form_id = ${plan.formId} AND received_at < ${plan.cutoff}
      ORDER BY received_at, id LIMIT ${RETENTION_CHUNK}`,
  );
}

/** Applies every form's retention, a chunk at a time while `budget` lasts. D1 and R2 errors throw, so the cron logs and retries next time. */
export async function applyRetention(
  db: D1Database,
  bucket: R2Bucket | null,
  forms: readonly FormDef[],
  nowMs: number,
  budget: InvocationBudget = budgetFor("free"),
): Promise<RetentionReport[]> {
  const reports: RetentionReport[] = forms
    .filter((form) => Number.isFinite(form.retentionDays) && form.retentionDays > 0)
    .map((form) => ({ formId: form.id, cutoff: new Date(nowMs - form.retentionDays * DAY_MS).toISOString(), deleted: 0 }));
  let open = [...reports];
  while (open.length > 0) {
    const chunk = open.slice(0, RETENTION_FORMS_PER_CHUNK);
    if (!budget.trySpend({ ...PURGE_COST, d1Queries: PURGE_COST.d1Queries + chunk.length })) {
      for (const report of open) report.more = true;
      break;
    }
    const read = await runBatch(
      db,
      chunk.map((plan) => expiredStatement(db, plan)),
    );
    const found = read.map((result) => parseRows(IdRowSchema, result.results).map((row) => row.id));
    const ids = found.flat();
    if (ids.length > 0) {
      await purgeFiles(db, bucket, [{ ids }]);
      const done = await runBatch(db, purgeStatements(db, { ids }));
      const removed = new Set(parseRows(IdRowSchema, done.submissions.results).map((row) => row.id));
      chunk.forEach((report, i) => (report.deleted += found[i].filter((id) => removed.has(id)).length));
    }
    // A form whose read came back short has nothing older left.
    open = [...open.slice(chunk.length), ...chunk.filter((_, i) => found[i].length >= RETENTION_CHUNK)];
  }
  return reports;
}

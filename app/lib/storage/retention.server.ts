import sql from "sql-template-tag";
import { z } from "zod";
import type { FormDef } from "~/forms/schema";
import { budgetFor, type InvocationBudget } from "~/lib/platform/budget.server";
import { purgeFiles, purgeStatements } from "~/lib/storage/purge.server";
import { parseRows, runBatch, statement } from "~/lib/storage/sql.server";

// Retention: each form keeps submissions for `retentionDays`, then the cron removes them with their
// deliveries, attempts and files (docs/decisions/005-retention-and-deletion.md). Age is counted from
// received_at, whatever the delivery state: a delivery still dead after the retention period is not
// going to be fixed, and keeping personal data past its term is the greater harm. The cron takes them
// oldest first in chunks by the (form_id, received_at, id) index, as many as the invocation's budget
// allows, and the next run goes on (docs/decisions/060): no DELETE is unbounded.

const DAY_MS = 86_400_000;
/** Submissions per chunk: one read, their files, one batch of three DELETEs by id. */
export const RETENTION_CHUNK = 100;
/** What one chunk costs the invocation: D1 calls (read, files' read, three DELETEs) and one R2 call. */
const CHUNK_COST = { d1Queries: 5, subrequests: 1 };

export interface RetentionReport {
  formId: string;
  cutoff: string;
  deleted: number;
  /** True when the budget ran out before this form's expired rows did; the next run goes on. */
  more?: boolean;
}

const IdRowSchema = z.object({ id: z.string() });

/** Applies every form's retention, a chunk at a time while `budget` lasts. D1 and R2 errors throw, so the cron logs and retries next time. */
export async function applyRetention(
  db: D1Database,
  bucket: R2Bucket | null,
  forms: readonly FormDef[],
  nowMs: number,
  budget: InvocationBudget = budgetFor("free"),
): Promise<RetentionReport[]> {
  const plans = forms
    .filter((form) => Number.isFinite(form.retentionDays) && form.retentionDays > 0)
    .map((form) => ({ formId: form.id, cutoff: new Date(nowMs - form.retentionDays * DAY_MS).toISOString() }));
  const reports: RetentionReport[] = [];
  for (const plan of plans) {
    const report: RetentionReport = { ...plan, deleted: 0 };
    reports.push(report);
    for (;;) {
      if (!budget.trySpend(CHUNK_COST)) {
        report.more = true;
        break;
      }
      const { results } = await statement(
        db,
        sql`SELECT id FROM submissions INDEXED BY submissions_form_received_id WHERE form_id = ${plan.formId} AND received_at < ${plan.cutoff}
          ORDER BY received_at, id LIMIT ${RETENTION_CHUNK}`,
      ).all();
      const ids = parseRows(IdRowSchema, results).map((row) => row.id);
      if (ids.length === 0) break;
      await purgeFiles(db, bucket, [{ ids }]);
      const done = await runBatch(db, purgeStatements(db, { ids }));
      report.deleted += done.submissions.results.length;
      if (ids.length < RETENTION_CHUNK) break;
    }
  }
  return reports;
}

import type { FormDef } from "~/forms/schema";
import { purgeFiles, purgeStatements, type PurgeSelector } from "~/lib/storage/purge.server";
import { runBatch } from "~/lib/storage/sql.server";

// Retention: each form keeps submissions for `retentionDays`, then the cron removes them with their
// deliveries, attempts and files (docs/decisions/005-retention-and-deletion.md). Age is counted from
// received_at, whatever the delivery state: a delivery still dead after the retention period is not
// going to be fixed, and keeping personal data past its term is the greater harm.

const DAY_MS = 86_400_000;

export interface RetentionReport {
  formId: string;
  cutoff: string;
  deleted: number;
}

/** Applies every form's retention: files first, then one D1 batch. D1 and R2 errors throw, so the cron logs and retries next time. */
export async function applyRetention(
  db: D1Database,
  bucket: R2Bucket | null,
  forms: readonly FormDef[],
  nowMs: number,
): Promise<RetentionReport[]> {
  const plans = forms
    .filter((form) => Number.isFinite(form.retentionDays) && form.retentionDays > 0)
    .map((form) => ({ formId: form.id, cutoff: new Date(nowMs - form.retentionDays * DAY_MS).toISOString() }));
  if (plans.length === 0) return [];
  const selectors: PurgeSelector[] = plans.map((plan) => ({ formId: plan.formId, receivedBefore: plan.cutoff }));
  await purgeFiles(db, bucket, selectors);
  const purged = await runBatch(
    db,
    selectors.map((selector) => purgeStatements(db, selector)),
  );
  return plans.map((plan, i) => ({ ...plan, deleted: purged[i].submissions.meta.changes ?? 0 }));
}

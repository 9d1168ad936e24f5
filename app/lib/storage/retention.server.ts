import type { FormDef } from "~/forms/schema";
import { purgeStatements } from "~/lib/storage/purge.server";
import { runBatch } from "~/lib/storage/sql.server";

// Retention: each form keeps submissions for `retentionDays`, then the cron removes them with their
// deliveries and attempts (docs/decisions/005-retention-and-deletion.md). Age is counted from
// received_at, whatever the delivery state: a delivery still dead after the retention period is not
// going to be fixed, and keeping personal data past its term is the greater harm.

const DAY_MS = 86_400_000;

export interface RetentionReport {
  formId: string;
  cutoff: string;
  deleted: number;
}

/** Applies every form's retention in one D1 batch. D1 errors throw, so the cron logs and retries next time. */
export async function applyRetention(db: D1Database, forms: readonly FormDef[], nowMs: number): Promise<RetentionReport[]> {
  const plans = forms
    .filter((form) => Number.isFinite(form.retentionDays) && form.retentionDays > 0)
    .map((form) => ({ formId: form.id, cutoff: new Date(nowMs - form.retentionDays * DAY_MS).toISOString() }));
  if (plans.length === 0) return [];
  const purged = await runBatch(
    db,
    plans.map((plan) => purgeStatements(db, { formId: plan.formId, receivedBefore: plan.cutoff })),
  );
  return plans.map((plan, i) => ({ ...plan, deleted: purged[i].submissions.meta.changes ?? 0 }));
}

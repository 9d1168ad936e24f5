import type { FormDef } from "~/forms/schema";
import { purgeSubmissions } from "~/lib/storage/purge.server";

// Retention: each form keeps submissions for `retentionDays`, then the scheduled Worker removes them
// with their deliveries, attempts and files (docs/decisions/005-retention-and-deletion.md). Age is counted
// from received_at, whatever the delivery state: a delivery still dead after the retention period
// is not going to be fixed, and keeping personal data past its term is the greater harm.

const DAY_MS = 86_400_000;

export interface RetentionReport {
  formId: string;
  cutoff: string;
  deleted: number;
}

/**
 * Applies every form's retention: one D1 read for their files, R2 deletes, one D1 batch for the rows
 * (purgeSubmissions). D1 and R2 errors throw, so the scheduled run logs and retries next time.
 */
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
  const results = await purgeSubmissions(
    db,
    bucket,
    plans.map((p) => ({ formId: p.formId, receivedBefore: p.cutoff })),
  );
  return plans.map((plan, i) => ({ ...plan, deleted: results[i * 3 + 2].meta.changes ?? 0 }));
}

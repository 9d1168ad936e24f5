import sql from "sql-template-tag";
import type { FormDef } from "~/forms/schema";
import { buildPayload, type WebhookPayload } from "~/lib/sending/standard-webhook.server";
import { sampleValue } from "~/lib/forms/sample-value";
import { linkedFiles } from "~/lib/sending/linked-files.server";
import type { Settings } from "~/lib/settings/settings.server";
import { parseRows, statement } from "~/lib/storage/sql.server";
import { STORED_COLUMNS, StoredRowSchema, storedSubmissionOf, type StoredSubmission } from "~/lib/storage/submissions.server";

// What a platform asks for when a user sets a trigger up (Zapier's performList, Make's and n8n's
// "fetch test event"): recent submissions in exactly the body a subscription receives.

/** How many recent submissions the sample holds. */
export const SAMPLE_SIZE = 3;

/**
 * The newest accepted submissions of `form` (not tests, not quarantined) as delivered bodies, newest first;
 * with none yet, one made of sample values and marked `test`. D1 errors throw.
 */
export async function sampleDeliveries(db: D1Database, settings: Settings, form: FormDef, nowMs: number): Promise<WebhookPayload[]> {
  const { results } = await statement(
    db,
    sql`SELECT ${STORED_COLUMNS} FROM submissions s WHERE s.form_id = ${form.id} AND s.status = 'accepted' AND s.test = 0
      ORDER BY s.received_at DESC, s.id DESC LIMIT ${SAMPLE_SIZE}`,
  ).all();
  const recent = parseRows(StoredRowSchema, results).map(storedSubmissionOf);
  if (recent.length === 0) return [buildPayload(madeUp(form, nowMs))];
  return Promise.all(recent.map(async (submission) => buildPayload(submission, await linkedFiles(settings, form, submission, nowMs))));
}

function madeUp(form: FormDef, nowMs: number): StoredSubmission {
  return {
    id: "00000000-0000-4000-8000-000000000000",
    formId: form.id,
    formVersion: null,
    fields: Object.fromEntries(form.fields.map((field) => [field.name, sampleValue(field)])),
    receivedAt: new Date(nowMs).toISOString(),
    status: "accepted",
    quarantineReason: null,
    verification: null,
    test: true,
  };
}

import { catalogSettings, findForm } from "~/lib/forms/live.server";
import type { Settings } from "~/lib/settings/settings.server";
import type { AdminUser } from "~/lib/admin/auth.server";
import { auditStatement } from "~/lib/admin/audit.server";
import { deliverSubmissionNow } from "~/lib/delivery/delivery.server";
import type { Mailer } from "~/lib/delivery/mailer.server";
import { ERRORS, type ErrorCode } from "~/lib/http/errors";
import { refusal } from "~/lib/http/responses.server";
import { outboxStatements, redeliverDead, redeliverSubmission, type RedeliveryResult } from "~/lib/delivery/outbox.server";
import { emailTag, eraseByEmail } from "~/lib/admin/erase.server";
import { purgeStatements } from "~/lib/storage/purge.server";
import { byCount, countOf } from "~/lib/text/count";

// What the console's buttons do. Each function makes one change and writes its audit row; where
// the change is ours (delete, erase, release) the audit row rides in the same D1 batch.

export type ActionResult = { ok: true; message: string } | { ok: false; message: string };

interface Ctx {
  env: Env;
  /** Parsed once for this request: where redelivered and released submissions go. */
  settings: Settings;
  user: AdminUser;
  request: Request;
  /** For the first delivery after a redeliver or release, after the response. */
  ctx?: { waitUntil(promise: Promise<unknown>): void };
  /** Sends the e-mail kinds of that delivery (null: they wait for the binding, held). */
  mailer?: Mailer | null;
}

/** Deletes one submission with its deliveries and attempts. Returns ok:false when it did not exist. */
export async function deleteSubmission({ env, user, request }: Ctx, id: string): Promise<ActionResult> {
  const results = await env.DB.batch([
    ...purgeStatements(env.DB, { ids: [id] }),
    auditStatement(env.DB, { user, request, action: "submission.delete", target: id }),
  ]);
  const deleted = results[2].meta.changes ?? 0;
  return deleted > 0
    ? { ok: true, message: "The submission and its delivery log were deleted." }
    : { ok: false, message: "There is no such submission." };
}

/** Erases every submission holding `email` (folded); the audit row keeps an HMAC tag, never the address. */
export async function eraseEmail({ env, settings, user, request }: Ctx, email: string): Promise<ActionResult> {
  const tag = await emailTag(email, settings.admin.sessionSecrets[0]);
  const deleted = await eraseByEmail(env.DB, email, (matched) =>
    auditStatement(env.DB, { user, request, action: "erase", detail: { emailTag: tag, matched } }),
  );
  const logs = byCount(deleted, "its delivery log", "their delivery logs");
  return { ok: true, message: `Erased ${countOf(deleted, "submission", "submissions")} and ${logs}.` };
}

/** Writes the audit row for an export (reading personal data in bulk is worth a record). */
export async function auditExport({ env, user, request }: Ctx, formId: string, detail: Record<string, unknown>) {
  await env.DB.batch([auditStatement(env.DB, { user, request, action: "export", target: formId, detail })]);
}

/** Writes the audit row of a requeue, whether it queued anything or was refused. */
async function auditRequeue(
  { env, user, request }: Pick<Ctx, "env" | "user" | "request">,
  action: "form.redeliver-dead" | "submission.redeliver",
  target: string,
  result: RedeliveryResult,
): Promise<void> {
  const kept = result.ok && result.keptConfirmations > 0 ? { keptConfirmations: result.keptConfirmations } : {};
  const detail = result.ok ? { requeued: result.requeued, ...kept } : { refused: result.code };
  await env.DB.batch([auditStatement(env.DB, { user, request, action, target, detail })]);
}

/** Queues every dead delivery of a form again (the scheduled drain sends them). */
export async function redeliverFormDead({ env, settings, user, request }: Ctx, formId: string): Promise<ActionResult> {
  const found = await findForm({ cloudflare: { env }, settings }, formId);
  const result: RedeliveryResult = found.ok ? await redeliverDead(env.DB, formId) : { ok: false, code: found.code };
  await auditRequeue({ env, user, request }, "form.redeliver-dead", formId, result);
  if (!result.ok) return refused(result.code);
  return { ok: true, message: `Queued ${countOf(result.requeued, "dead delivery", "dead deliveries")} of ${formId} again.` };
}

/** Queues one submission's deliveries again (same webhook-ids) and tries them at once, after the response. */
export async function redeliverOne({ env, settings, user, request, ctx, mailer }: Ctx, id: string): Promise<ActionResult> {
  const result = await redeliverSubmission(env.DB, id);
  await auditRequeue({ env, user, request }, "submission.redeliver", id, result);
  if (!result.ok) return refused(result.code);
  ctx?.waitUntil(deliverSubmissionNow(env.DB, settings, id, { mailer }));
  const kept = result.keptConfirmations > 0 ? " The confirmation to the sender is not sent again." : "";
  return { ok: true, message: `Queued ${countOf(result.requeued, "delivery", "deliveries")} again.${kept}` };
}

/**
 * Releases a quarantined submission: flips its status and puts it in the outbox, with the audit row,
 * in one batch. A second release fails on the outbox's UNIQUE (submission, destination) and rolls back.
 */
export async function releaseQuarantined({ env, settings, user, request, ctx, mailer }: Ctx, id: string): Promise<ActionResult> {
  const row = await env.DB.prepare("SELECT form_id, status FROM submissions WHERE id = ?1")
    .bind(id)
    .first<{ form_id: string; status: string }>();
  if (!row) return { ok: false, message: ERRORS.not_found.message };
  const found = await findForm({ cloudflare: { env }, settings }, row.form_id);
  if (row.status !== "quarantined" || !found.ok) return { ok: false, message: ERRORS.admin_not_quarantined.message };
  const nowMs = Date.now();
  const outbox = outboxStatements(env.DB, catalogSettings(settings, found.catalog), found.live.form, id, nowMs);
  try {
    const [flip] = await env.DB.batch([
      env.DB.prepare("UPDATE submissions SET status = 'accepted' WHERE id = ?1 AND status = 'quarantined'").bind(id),
      ...outbox,
      auditStatement(env.DB, { user, request, action: "submission.release", target: id, detail: { destinations: outbox.length }, nowMs }),
    ]);
    if ((flip.meta.changes ?? 0) === 0) return { ok: false, message: ERRORS.admin_not_quarantined.message };
  } catch (error) {
    // A second release fails on the outbox's UNIQUE index: the submission is no longer in quarantine.
    // Any other failure is the database's (console-route.server.ts answers it).
    if (!isUniqueConflict(error)) throw error;
    return { ok: false, message: ERRORS.admin_not_quarantined.message };
  }
  if (outbox.length > 0) ctx?.waitUntil(deliverSubmissionNow(env.DB, settings, id, { mailer }));
  return { ok: true, message: `Released from quarantine and queued for ${countOf(outbox.length, "destination", "destinations")}.` };
}

/** A refusal as the console shows it; a storage failure is thrown as the 503 it is, not shown as a refusal. */
function refused(code: ErrorCode): ActionResult {
  if (code === "storage_unavailable") throw refusal(code);
  return { ok: false, message: ERRORS[code].message };
}

function isUniqueConflict(error: unknown): boolean {
  return /UNIQUE constraint failed/i.test(String(error instanceof Error ? error.message : error));
}

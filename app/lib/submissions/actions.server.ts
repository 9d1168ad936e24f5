import type { AppLoadContext } from "@remix-run/cloudflare";
import { catalogSettings, findForm } from "~/lib/forms/live.server";
import type { Settings } from "~/lib/settings/settings.server";
import type { AdminUser } from "~/lib/auth/admin-user.server";
import { auditStatement } from "~/lib/storage/audit-log.server";
import { deliverSubmissionNow } from "~/lib/delivery/drain.server";
import type { Mailer } from "~/lib/sending/mailer.server";
import { ERRORS, type ErrorCode } from "~/lib/http/errors";
import { refusal } from "~/lib/http/responses.server";
import { outboxStatements, redeliverSubmission, type RedeliveryResult } from "~/lib/delivery/outbox.server";
import { replayDead } from "~/lib/delivery/replay.server";
import { budgetFor } from "~/lib/platform/budget.server";
import type { DeadFilter } from "~/lib/storage/delivery-requeue.server";
import { emailTag, eraseByEmail } from "~/lib/submissions/erase.server";
import { purgeFiles, purgeStatements } from "~/lib/storage/purge.server";
import { uploadsBucket } from "~/lib/storage/file-objects.server";
import { isConstraintFailure } from "~/lib/storage/d1-failure.server";
import { runBatch } from "~/lib/storage/sql.server";
import { releaseStatement, submissionStatus } from "~/lib/storage/submissions.server";
import { byCount, countOf } from "~/lib/text/count";
import { markSubmissions } from "~/lib/spam/marks.server";
import { reportMarks } from "~/lib/spam/owner-marks.server";

// The console's buttons: each makes one change and its audit row, in the same D1 batch where the change is ours.

export type ActionResult = { ok: true; message: string } | { ok: false; message: string };

export interface Ctx {
  env: Env;
  settings: Settings;
  user: AdminUser;
  request: Request;
  ctx?: { waitUntil(promise: Promise<unknown>): void };
  mailer?: Mailer | null;
  now: () => number;
}

/** The context of an action for `user`, from the request's load context. */
export function actionContext(context: AppLoadContext, user: AdminUser, request: Request): Ctx {
  const { env, ctx } = context.cloudflare;
  return { env, settings: context.settings, user, request, ctx, mailer: context.mailer, now: context.now };
}

/** Deletes one submission with its deliveries, attempts and files (first). Returns ok:false when it did not exist. */
export async function deleteSubmission({ env, user, request, now }: Ctx, id: string): Promise<ActionResult> {
  await purgeFiles(env.DB, uploadsBucket(env), [{ ids: [id] }]);
  const done = await runBatch(env.DB, {
    purged: purgeStatements(env.DB, { ids: [id] }),
    audit: auditStatement(env.DB, { user, request, action: "submission.delete", target: id, nowMs: now() }),
  });
  const deleted = done.purged.submissions.results.length;
  return deleted > 0
    ? { ok: true, message: "The submission and its delivery log were deleted." }
    : { ok: false, message: "There is no such submission." };
}

/** Erases every submission holding `email` (folded); the audit row keeps an HMAC tag, never the address. */
export async function eraseEmail({ env, settings, user, request, now }: Ctx, email: string): Promise<ActionResult> {
  const tag = await emailTag(email, settings.admin.sessionSecrets[0]);
  const deleted = await eraseByEmail(env.DB, uploadsBucket(env), email, (matched) =>
    auditStatement(env.DB, { user, request, action: "erase", detail: { emailTag: tag, matched }, nowMs: now() }),
  );
  const logs = byCount(deleted, "its delivery log", "their delivery logs");
  return { ok: true, message: `Erased ${countOf(deleted, "submission", "submissions")} and ${logs}.` };
}

/** Writes the audit row for an export (reading personal data in bulk is worth a record). */
export async function auditExport({ env, user, request, now }: Ctx, formId: string, detail: Record<string, unknown>) {
  await auditStatement(env.DB, { user, request, action: "export", target: formId, detail, nowMs: now() }).run();
}

async function auditRequeue(
  { env, user, request, now }: Pick<Ctx, "env" | "user" | "request" | "now">,
  action: "submission.redeliver",
  target: string,
  result: RedeliveryResult,
): Promise<void> {
  const kept = result.ok && result.keptConfirmations > 0 ? { keptConfirmations: result.keptConfirmations } : {};
  const detail = result.ok ? { requeued: result.requeued, ...kept } : { refused: result.code };
  await auditStatement(env.DB, { user, request, action, target, detail, nowMs: now() }).run();
}

export type BulkRedelivery = { ok: true; requeued: number; remaining: number } | { ok: false; code: ErrorCode };

/** Queues a form's dead deliveries again in chunks within the budget, audited (ADR 072). Never throws for D1; form_not_found. */
export async function redeliverDeadInBulk(
  { env, settings, user, request, now }: Pick<Ctx, "env" | "settings" | "user" | "request" | "now">,
  filter: DeadFilter,
): Promise<BulkRedelivery> {
  const found = await findForm({ cloudflare: { env }, settings }, filter.formId, now());
  const budget = budgetFor(settings.plan, { d1Queries: 8, subrequests: 0 });
  const result = found.ok ? await replayDead(env.DB, filter, { nowMs: now(), budget }) : { ok: false as const, code: found.code };
  const range = { destination: filter.destination ?? null, from: filter.fromIso ?? null, to: filter.toIso ?? null };
  const detail = result.ok ? { ...range, requeued: result.requeued, remaining: result.remaining } : { ...range, refused: result.code };
  await auditStatement(env.DB, { user, request, action: "form.redeliver-dead", target: filter.formId, detail, nowMs: now() }).run();
  return result;
}

/** The console's words for a bulk redelivery's progress. */
export function describeBulkRedelivery(formId: string, result: BulkRedelivery): ActionResult {
  if (!result.ok) return refused(result.code);
  const queued = `Queued ${countOf(result.requeued, "dead delivery", "dead deliveries")} of ${formId} again`;
  return {
    ok: true,
    message:
      result.remaining === 0 ? `${queued}.` : `${queued}; ${countOf(result.remaining, "is", "are")} still dead: redeliver again to go on.`,
  };
}

/** Queues every dead delivery of a form again, as far as one request's budget goes (the dashboard's button). */
export async function redeliverFormDead(ctx: Ctx, formId: string): Promise<ActionResult> {
  return describeBulkRedelivery(formId, await redeliverDeadInBulk(ctx, { formId }));
}

/** Queues one submission's deliveries again (same webhook-ids), audited, tried after the response. Fails with the requeue's code. */
export async function requeueOne({ env, settings, user, request, ctx, mailer, now }: Ctx, id: string): Promise<RedeliveryResult> {
  const result = await redeliverSubmission(env.DB, id, now());
  await auditRequeue({ env, user, request, now }, "submission.redeliver", id, result);
  if (result.ok) ctx?.waitUntil(deliverSubmissionNow(env.DB, settings, id, { mailer, now }));
  return result;
}

/** The console's redeliver button: requeueOne, said in words. */
export async function redeliverOne(context: Ctx, id: string): Promise<ActionResult> {
  const result = await requeueOne(context, id);
  if (!result.ok) return refused(result.code);
  const kept = result.keptConfirmations > 0 ? " The confirmation to the sender is not sent again." : "";
  return { ok: true, message: `Queued ${countOf(result.requeued, "delivery", "deliveries")} again.${kept}` };
}

/** Releases a quarantined submission into the outbox, with its audit row, in one batch. */
export async function releaseQuarantined({ env, settings, user, request, ctx, mailer, now }: Ctx, id: string): Promise<ActionResult> {
  const status = await submissionStatus(env.DB, id);
  if (!status) return { ok: false, message: ERRORS.not_found.message };
  const found = await findForm({ cloudflare: { env }, settings }, status.formId, now());
  if (status.status !== "quarantined" || !found.ok) return { ok: false, message: ERRORS.admin_not_quarantined.message };
  const nowMs = now();
  const outbox = outboxStatements(env.DB, catalogSettings(settings, found.catalog), found.live.form, id, nowMs);
  try {
    const done = await runBatch(env.DB, {
      release: releaseStatement(env.DB, id),
      outbox,
      audit: auditStatement(env.DB, {
        user,
        request,
        action: "submission.release",
        target: id,
        detail: { destinations: outbox.length },
        nowMs,
      }),
    });
    if ((done.release.meta.changes ?? 0) === 0) return { ok: false, message: ERRORS.admin_not_quarantined.message };
  } catch (error) {
    // A second release fails on the outbox's UNIQUE index; any other failure is the database's.
    if (!isConstraintFailure(error)) throw error;
    return { ok: false, message: ERRORS.admin_not_quarantined.message };
  }
  if (outbox.length > 0) ctx?.waitUntil(deliverSubmissionNow(env.DB, settings, id, { mailer, now }));
  // A release is the owner saying "not spam": it trains the filter (its audit row is the release's).
  const ham = await markSubmissions(env.DB, { ids: [id], label: "ham", nowMs, actor: null }).catch((error: unknown) => {
    console.warn(`releasing ${id} did not train the spam filter:`, error);
    return null;
  });
  if (ham?.ok) reportMarks({ env, publicUrl: settings.publicUrl, request, ctx, now }, ham, "ham");
  return { ok: true, message: `Released from quarantine and queued for ${countOf(outbox.length, "destination", "destinations")}.` };
}

function refused(code: ErrorCode): ActionResult {
  if (code === "storage_unavailable") throw refusal(code);
  return { ok: false, message: ERRORS[code].message };
}

import { findForm } from "~/forms/registry";
import type { AdminUser } from "~/lib/admin-auth.server";
import { auditStatement } from "~/lib/audit.server";
import { emailTag, eraseByEmail } from "~/lib/erase.server";
import { purgeStatements } from "~/lib/purge.server";

// What the console's buttons do. Each function makes one change and writes its audit row; where
// the change is ours (delete, erase, release) the audit row rides in the same D1 batch.

export type ActionResult = { ok: true; message: string } | { ok: false; message: string };

interface Ctx {
  env: Env;
  user: AdminUser;
  request: Request;
}

/** Deletes one submission with its deliveries and attempts. Returns ok:false when it did not exist. */
export async function deleteSubmission({ env, user, request }: Ctx, id: string): Promise<ActionResult> {
  const results = await env.DB.batch([
    ...purgeStatements(env.DB, { ids: [id] }),
    auditStatement(env.DB, { user, request, action: "submission.delete", target: id }),
  ]);
  const deleted = results[2].meta.changes ?? 0;
  return deleted > 0 ? { ok: true, message: "The submission and its delivery log were deleted." } : { ok: false, message: "There is no such submission." };
}

/** Erases every submission holding `email`; the audit row keeps a hash tag, never the address. */
export async function eraseEmail({ env, user, request }: Ctx, email: string): Promise<ActionResult> {
  const tag = await emailTag(email);
  const deleted = await eraseByEmail(env.DB, email, (matched) =>
    auditStatement(env.DB, { user, request, action: "erase", detail: { emailTag: tag, matched } }),
  );
  return { ok: true, message: `Erased ${deleted} submission${deleted === 1 ? "" : "s"} and their delivery logs.` };
}

/** Writes the audit row for an export (reading personal data in bulk is worth a record). */
export async function auditExport({ env, user, request }: Ctx, formId: string, detail: Record<string, unknown>) {
  await env.DB.batch([auditStatement(env.DB, { user, request, action: "export", target: formId, detail })]);
}

/** Queues every dead delivery of a form again. */
export async function redeliverFormDead({ env, user, request }: Ctx, formId: string): Promise<ActionResult> {
  if (!findForm(formId)) return { ok: false, message: "There is no form with that name." };
  await env.DB.batch([auditStatement(env.DB, { user, request, action: "form.redeliver-dead", target: formId, detail: { requeued: 0 } })]);
  return { ok: false, message: "Redelivery is not available yet: the outbox is not installed." };
}

/** Queues one submission's deliveries again. */
export async function redeliverOne({ env, user, request }: Ctx, id: string): Promise<ActionResult> {
  await env.DB.batch([auditStatement(env.DB, { user, request, action: "submission.redeliver", target: id, detail: { requeued: 0 } })]);
  return { ok: false, message: "Redelivery is not available yet: the outbox is not installed." };
}

/** Moves a quarantined submission into the outbox. */
export async function releaseQuarantined({ env, user, request }: Ctx, id: string): Promise<ActionResult> {
  await env.DB.batch([auditStatement(env.DB, { user, request, action: "submission.release", target: id, detail: { released: false } })]);
  return { ok: false, message: "Release is not available yet: the outbox is not installed." };
}

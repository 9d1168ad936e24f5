import { z } from "zod";
import { generateSigningSecret } from "~/lib/destinations/signing-secret";
import { webhookUrlProblem } from "~/lib/destinations/checks";
import type { ErrorCode } from "~/lib/http/errors";
import type { Settings } from "~/lib/settings/settings.server";
import { auditStatement } from "~/lib/storage/audit-log.server";
import { runBatch } from "~/lib/storage/sql.server";
import { sealHookSecret } from "~/lib/hooks/secret.server";
import {
  endHookStatement,
  HOOK_EVENTS,
  insertHookStatement,
  isHookDestination,
  newHookId,
  type HookView,
} from "~/lib/hooks/subscriptions.server";

// Subscribing and unsubscribing by API (REST hooks, docs/api.md#subscriptions, ADR 123): each change and
// its audit row go in one D1 batch. The caller has checked the user is an admin and the form exists.

export interface HookActor {
  user: { id: string; role: string };
  request: Request;
  db: D1Database;
  settings: Settings;
  nowMs: number;
}

const MAX_URL = 2000;

export const NewHookSchema = z.strictObject({
  url: z.string().max(MAX_URL),
  formId: z.string().min(1).max(64),
  event: z.enum(HOOK_EVENTS),
});

/** A new subscription with its secret: the only answer that ever carries the secret. */
export type CreatedHook = HookView & { secret: string };

export type HookProblem = { code: ErrorCode; problems?: string[] };

/** The body's problems, in words for the platform's developer; the parsed body when there are none. */
export function checkNewHook(
  body: unknown,
  allowLoopbackHttp: boolean,
): { ok: true; hook: z.infer<typeof NewHookSchema> } | { ok: false; problems: string[] } {
  const parsed = NewHookSchema.safeParse(body);
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.map((issue) => `${issue.path.join(".") || "body"}: ${issue.message}`) };
  }
  const problem = webhookUrlProblem(parsed.data.url, allowLoopbackHttp);
  if (problem) return { ok: false, problems: [`url: the URL ${problem}`] };
  return { ok: true, hook: parsed.data };
}

/**
 * Makes a subscription of a known form with a fresh whsec_ secret, sealed. Fails with
 * settings_encryption_key_missing (nothing to seal with) or hook_limit_reached (the form has 50). D1 errors throw.
 */
export async function createHook(
  actor: HookActor,
  hook: z.infer<typeof NewHookSchema>,
): Promise<{ ok: true; hook: CreatedHook } | { ok: false; code: ErrorCode }> {
  const id = newHookId();
  const secret = generateSigningSecret();
  const sealed = await sealHookSecret(actor.settings.encryptionKeys, id, secret);
  if (sealed === null) return { ok: false, code: "settings_encryption_key_missing" };
  const { db, user, request, nowMs } = actor;
  const done = await runBatch(db, {
    insert: insertHookStatement(db, { ...hook, id, sealedSecret: sealed, actor: user.id, nowMs }),
    audit: auditStatement(db, {
      user,
      request,
      action: "hook.create",
      target: id,
      detail: { formId: hook.formId, event: hook.event, host: new URL(hook.url).host },
      nowMs,
      ifChanged: true,
    }),
  });
  if (done.insert.results.length === 0) return { ok: false, code: "hook_limit_reached" };
  const createdAt = new Date(nowMs).toISOString();
  return { ok: true, hook: { id, formId: hook.formId, event: hook.event, url: hook.url, createdAt, createdBy: user.id, secret } };
}

/** Ends a live subscription, audited. Fails with hook_not_found. D1 errors throw. */
export async function deleteHook(actor: HookActor, id: string): Promise<{ ok: true; formId: string } | { ok: false; code: ErrorCode }> {
  if (!isHookDestination(id)) return { ok: false, code: "hook_not_found" };
  const { db, user, request, nowMs } = actor;
  const done = await runBatch(db, {
    ended: endHookStatement(db, id, user.id, nowMs),
    audit: auditStatement(db, { user, request, action: "hook.delete", target: id, nowMs, ifChanged: true }),
  });
  const row = done.ended.results[0] as { form_id?: unknown } | undefined;
  return typeof row?.form_id === "string" ? { ok: true, formId: row.form_id } : { ok: false, code: "hook_not_found" };
}

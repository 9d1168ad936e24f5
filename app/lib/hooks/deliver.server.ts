import { webhookUrlProblem } from "~/lib/destinations/checks";
import { held, skipped, type KindAttempt } from "~/lib/destinations/sender.server";
import { buildPayload, sendWebhook } from "~/lib/sending/standard-webhook.server";
import type { AttemptRecord } from "~/lib/sending/attempt.server";
import { linkedFiles } from "~/lib/sending/linked-files.server";
import { parseWebhookSecrets } from "~/lib/sending/signature.server";
import { openHookSecret } from "~/lib/hooks/secret.server";
import { findHook, type HookRow } from "~/lib/hooks/subscriptions.server";

// One attempt at a subscription's delivery: the webhook destination's signed POST and payload, to the
// subscription's URL with its own secret. The subscription is read at attempt time, so a deleted one's
// queued rows settle as not sent, and a 410 is `gone`: the settle ends the subscription (ADR 123).

/**
 * Sends one delivery to subscription `claim.destination`: `known` is its row as a batch read it (null:
 * not found), or undefined to read it here. Never throws except when D1 fails.
 */
export async function attemptHook(input: KindAttempt, known?: HookRow | null): Promise<AttemptRecord> {
  const { db, settings, form, claim, submission, nowMs, timeoutMs, fetch } = input;
  const hook = known === undefined ? await findHook(db, claim.destination) : known;
  if (!hook || hook.form_id !== claim.formId) return skipped("the subscription no longer exists");
  if (hook.ended_at !== null) return skipped(hook.ended_by === "receiver" ? "the subscriber answered 410" : "the subscription was deleted");
  const problem = webhookUrlProblem(hook.url, settings.allowLoopbackHttp);
  if (problem) return held(`the subscription's URL ${problem}`);
  const secret = await openHookSecret(settings.encryptionKeys, hook.id, hook.secret);
  const keys = secret === null ? null : parseWebhookSecrets(secret);
  if (!keys?.ok) return held("the subscription's secret cannot be opened (SETTINGS_ENCRYPTION_KEY changed?)");
  const files = await linkedFiles(settings, form, submission, nowMs);
  const body = JSON.stringify(buildPayload(submission, files));
  const record = await sendWebhook({ url: hook.url, keys: keys.keys, webhookId: claim.id, body, timeoutMs, fetch });
  // REST hooks: 410 Gone means "unsubscribe me" (other statuses are retried like any webhook's).
  return record.httpStatus === 410 ? { ...record, error: "gone", detail: "HTTP 410: the subscriber ended the subscription" } : record;
}

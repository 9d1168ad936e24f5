import type { StoredSubmission } from "~/lib/storage/submissions.server";
import { linkedFiles, type LinkedFile } from "~/lib/sending/file-links.server";
import { parseWebhookSecrets, signWebhook } from "~/lib/sending/signature.server";
import { DELIVERY_TIMEOUT_MS, postAttempt, type AttemptRecord } from "~/lib/sending/attempt.server";
import { defineSender, resolveUrl, type ResolvedDestination } from "~/lib/destinations/sender.server";

// One signed POST to a webhook destination, following Standard Webhooks: a fresh timestamp and
// signature per attempt under a stable webhook-id. It never throws (attempt.server.ts).

export const WEBHOOK_USER_AGENT = "Gatepost-Webhooks/1";

/** One stored file in a payload: a link (null without PUBLIC_URL or FILE_LINK_SECRET), never its bytes. */
export interface WebhookFile {
  id: string;
  field: string;
  name: string;
  type: string;
  size: number;
  sha256: string;
  url: string | null;
  url_expires_at: string | null;
}

/** The JSON body receivers get (docs/webhooks.md). */
export interface WebhookPayload {
  type: "submission.created";
  form: string;
  submission: {
    id: string;
    received_at: string;
    /** The form version the fields were validated against: /f/<form>/schema.json describes the current one. */
    form_version: string | null;
    /** True for a test sent from the console ("Send a test"), with sample values. */
    test: boolean;
    fields: StoredSubmission["fields"];
    files: WebhookFile[];
  };
  verification: { hostname: string; action: string; challenge_ts: string } | null;
}

export interface SendWebhookInput {
  url: string;
  keys: readonly Uint8Array<ArrayBuffer>[];
  webhookId: string;
  body: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** The payload of one submission; `files` (linkedFiles) carry the links this attempt signed. */
export function buildPayload(submission: StoredSubmission, files: readonly LinkedFile[] = []): WebhookPayload {
  const v = submission.verification;
  return {
    type: "submission.created",
    form: submission.formId,
    submission: {
      id: submission.id,
      received_at: submission.receivedAt,
      form_version: submission.formVersion,
      test: submission.test,
      fields: submission.fields,
      files: files.map(({ field, file, link }) => ({
        id: file.id,
        field,
        name: file.name,
        type: file.type,
        size: file.size,
        sha256: file.sha256,
        url: link?.url ?? null,
        url_expires_at: link?.expiresAt ?? null,
      })),
    },
    verification: v ? { hostname: v.hostname, action: v.action, challenge_ts: v.challengeTs } : null,
  };
}

/** Sends one signed POST. Only a 2xx counts; redirects are not followed. Never throws. */
export async function sendWebhook(input: SendWebhookInput): Promise<AttemptRecord> {
  const { url, keys, webhookId, body, timeoutMs = DELIVERY_TIMEOUT_MS, fetch } = input;
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    "content-type": "application/json",
    "user-agent": WEBHOOK_USER_AGENT,
    "webhook-id": webhookId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": await signWebhook(keys, webhookId, timestamp, body),
  };
  return postAttempt({ url, headers, body, timeoutMs, fetch });
}

/** The webhook kind's sending half (its settings: spec.ts). */
export const sender = defineSender<ResolvedDestination & { url: string; keys: Uint8Array<ArrayBuffer>[] }>({
  kind: "webhook",
  resolve(input) {
    const url = resolveUrl(input, "WEBHOOK_URL");
    if (!url.ok) return url;
    const secrets = parseWebhookSecrets(input.own.WEBHOOK_SECRET);
    if (!secrets.ok) return { ok: false, reason: `${input.variable("WEBHOOK_SECRET")}: ${secrets.reason}` };
    return { ok: true, destination: { kind: "webhook", name: input.name, url: url.url, keys: secrets.keys } };
  },
  async attempt(destination, { settings, form, claim, submission, nowMs, timeoutMs, fetch }) {
    const files = await linkedFiles(settings, form, submission, nowMs);
    const body = JSON.stringify(buildPayload(submission, files));
    return sendWebhook({ url: destination.url, keys: destination.keys, webhookId: claim.id, body, timeoutMs, fetch });
  },
});

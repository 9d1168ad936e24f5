import type { StoredSubmission } from "~/lib/storage/submissions.server";
import type { LinkedFile } from "~/lib/sending/linked-files.server";
import { signWebhook, type SigningKey } from "~/lib/sending/signature.server";
import { DELIVERY_TIMEOUT_MS, postAttempt, type AttemptRecord } from "~/lib/sending/attempt.server";

// One signed POST following Standard Webhooks, for the webhook kind and subscriptions by API (ADR 123): a fresh timestamp and
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
  keys: readonly SigningKey[];
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

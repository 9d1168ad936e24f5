import type { StoredSubmission } from "~/lib/storage/submissions.server";
import { signWebhook } from "~/lib/delivery/webhook-signature.server";
import { readMessageUpTo } from "~/lib/http/read-stream.server";

// One HTTP attempt to one destination, following Standard Webhooks: a fresh timestamp and signature per
// attempt under a stable webhook-id. It never throws: every outcome comes back as an attempt record
// for the delivery log.

export const DELIVERY_TIMEOUT_MS = 10_000;
export const RESPONSE_EXCERPT_BYTES = 1024;
export const WEBHOOK_USER_AGENT = "Gatepost-Webhooks/1";

/** The JSON body receivers get (docs/webhooks.md). */
export interface WebhookPayload {
  type: "submission.created";
  form: string;
  submission: { id: string; received_at: string; fields: StoredSubmission["fields"] };
  verification: { hostname: string; action: string; challenge_ts: string } | null;
}

/** Error classes in delivery_attempts.error. */
export type AttemptErrorClass = "timeout" | "network" | "redirect" | "http_status" | "config";

export interface AttemptRecord {
  delivered: boolean;
  httpStatus: number | null;
  error: AttemptErrorClass | null;
  /** Short text for deliveries.last_error; never shown to submitters. */
  detail: string | null;
  latencyMs: number;
  excerpt: string | null;
}

export interface SendWebhookInput {
  url: string;
  keys: readonly Uint8Array<ArrayBuffer>[];
  webhookId: string;
  body: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export function buildPayload(submission: StoredSubmission): WebhookPayload {
  const v = submission.verification;
  return {
    type: "submission.created",
    form: submission.formId,
    submission: { id: submission.id, received_at: submission.receivedAt, fields: submission.fields },
    verification: v ? { hostname: v.hostname, action: v.action, challenge_ts: v.challengeTs } : null,
  };
}

/** Sends one signed POST. Only a 2xx counts; redirects are not followed. Never throws. */
export async function sendWebhook(input: SendWebhookInput): Promise<AttemptRecord> {
  const { url, keys, webhookId, body, timeoutMs = DELIVERY_TIMEOUT_MS, fetch: doFetch = fetch } = input;
  const started = Date.now();
  const timestamp = Math.floor(started / 1000);
  const elapsed = () => Date.now() - started;
  try {
    const response = await doFetch(url, {
      method: "POST",
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
      headers: {
        "content-type": "application/json",
        "user-agent": WEBHOOK_USER_AGENT,
        "webhook-id": webhookId,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": await signWebhook(keys, webhookId, timestamp, body),
      },
      body,
    });
    const excerpt = await readExcerpt(response);
    const status = response.status;
    if (status >= 200 && status < 300) {
      return { delivered: true, httpStatus: status, error: null, detail: null, latencyMs: elapsed(), excerpt };
    }
    const redirect = response.type === "opaqueredirect" || (status >= 300 && status < 400);
    return {
      delivered: false,
      httpStatus: status || null,
      error: redirect ? "redirect" : "http_status",
      detail: redirect ? `redirect ${status} (not followed)` : `HTTP ${status}`,
      latencyMs: elapsed(),
      excerpt,
    };
  } catch (error) {
    // workerd's DOMException is not always an Error subclass, so look at the name only.
    const name = typeof error === "object" && error !== null ? (error as { name?: unknown }).name : undefined;
    const timedOut = name === "TimeoutError" || name === "AbortError";
    return {
      delivered: false,
      httpStatus: null,
      error: timedOut ? "timeout" : "network",
      detail: timedOut ? `no answer within ${timeoutMs} ms` : `network: ${errorText(error)}`,
      latencyMs: elapsed(),
      excerpt: null,
    };
  }
}

/** The first 1 KiB of the body as text; the rest is cancelled unread. A broken body gives null. */
async function readExcerpt(response: Response): Promise<string | null> {
  if (!response.body) return null;
  const read = await readMessageUpTo(response, RESPONSE_EXCERPT_BYTES);
  return read ? new TextDecoder().decode(read.bytes.subarray(0, RESPONSE_EXCERPT_BYTES)) : null;
}

function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 200);
}

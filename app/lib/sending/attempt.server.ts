import { readMessageUpTo } from "~/lib/http/read-stream.server";
import { isBudgetRefusal } from "~/lib/storage/d1-failure.server";

// One outbound POST per attempt, so every kind gets the same timeout, redirect refusal, excerpt, 429 and 404 handling.

export const DELIVERY_TIMEOUT_MS = 10_000;
export const RESPONSE_EXCERPT_BYTES = 1024;
/** A Retry-After is honoured up to this; a longer one waits for the normal schedule's next step. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/** `gone`: dead at once; `config`: held; `skipped`: settled; `budget`: the platform's refusal, never logged or counted. */
export type AttemptErrorClass =
  "timeout" | "network" | "redirect" | "http_status" | "rate_limited" | "gone" | "rejected" | "config" | "skipped" | "budget";

export interface AttemptRecord {
  delivered: boolean;
  httpStatus: number | null;
  error: AttemptErrorClass | null;
  detail: string | null;
  latencyMs: number;
  excerpt: string | null;
  retryAfterMs?: number;
  /** The e-mail service refused the recipient itself (send-email.server.ts): no retry will get through. */
  recipientRefused?: boolean;
}

export interface PostInput {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** Chat webhooks answer 404/410 once deleted: report it as gone, not as a retryable failure. */
  goneOn404?: boolean;
}

/** Sends one POST. Only a 2xx counts; redirects are not followed. Never throws. */
export async function postAttempt(input: PostInput): Promise<AttemptRecord> {
  const { url, headers, body, timeoutMs = DELIVERY_TIMEOUT_MS, fetch: doFetch = fetch, goneOn404 = false } = input;
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  try {
    const response = await doFetch(url, { method: "POST", redirect: "manual", signal: AbortSignal.timeout(timeoutMs), headers, body });
    const excerpt = await readExcerpt(response);
    const status = response.status;
    const base = { httpStatus: status || null, latencyMs: elapsed(), excerpt };
    if (status >= 200 && status < 300) return { ...base, delivered: true, error: null, detail: null };
    if (status === 429) {
      const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"), Date.now());
      const wait = retryAfterMs === undefined ? "" : `, Retry-After ${Math.ceil(retryAfterMs / 1000)} s`;
      return { ...base, delivered: false, error: "rate_limited", detail: `HTTP 429 (rate limited${wait})`, retryAfterMs };
    }
    if (goneOn404 && (status === 404 || status === 410)) {
      return { ...base, delivered: false, error: "gone", detail: `HTTP ${status}: the destination no longer exists (webhook deleted?)` };
    }
    const redirect = response.type === "opaqueredirect" || (status >= 300 && status < 400);
    return {
      ...base,
      delivered: false,
      error: redirect ? "redirect" : "http_status",
      detail: redirect ? `redirect ${status} (not followed)` : `HTTP ${status}`,
    };
  } catch (error) {
    if (isBudgetRefusal(error)) return budgetRefused(error, elapsed());
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

/** Retry-After as delay-seconds or an HTTP date, capped; undefined when absent or junk. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  const ms = /^\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) * 1000 : Date.parse(trimmed) - nowMs;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(Math.ceil(ms), 0), MAX_RETRY_AFTER_MS);
}

async function readExcerpt(response: Response): Promise<string | null> {
  if (!response.body) return null;
  const read = await readMessageUpTo(response, RESPONSE_EXCERPT_BYTES);
  return read ? new TextDecoder().decode(read.bytes.subarray(0, RESPONSE_EXCERPT_BYTES)) : null;
}

/** The record of a call the platform refused for the invocation's spent budget: the receiver never saw it. */
export function budgetRefused(error: unknown, latencyMs: number): AttemptRecord {
  return { delivered: false, httpStatus: null, error: "budget", detail: errorText(error), latencyMs, excerpt: null };
}

export function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 200);
}

/** Posts a chat webhook message (JSON); a 404 for a deleted webhook is final (`gone`). Never throws. */
export function postChatMessage(
  url: string,
  payload: unknown,
  options: { timeoutMs?: number; fetch?: typeof fetch } = {},
): Promise<AttemptRecord> {
  return postAttempt({
    url,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(payload),
    timeoutMs: options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
    fetch: options.fetch,
    goneOn404: true,
  });
}

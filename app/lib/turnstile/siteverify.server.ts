import type { ErrorCode } from "~/lib/http/errors";
import { isAllowedProviderUrl } from "~/lib/http/loopback";

// Turnstile verification, failing closed (ADR 001). Home-made: the wrappers return the raw answer and leave every
// check (hostname, action, token size, a bounded retry, a code per doubt) to the caller anyway.

export const MAX_TOKEN_LENGTH = 2048;
export const TOTAL_TIMEOUT_MS = 10_000;
const ATTEMPT_TIMEOUT_MS = 3_000;
const MAX_RETRIES = 2;
const BACKOFF_MS = [250, 750];

/** Cloudflare's documented dummy secrets (1x passes, 2x fails, 3x "spent"); they answer example.com. */
export const TEST_SECRET_PATTERN = /^[123]x0{31}AA$/;
export const TEST_HOSTNAME = "example.com";

export type TurnstileVerdict =
  | { ok: true; hostname: string; action: string; challengeTs: string }
  | {
      ok: false;
      code: ErrorCode;
      retryable: boolean;
      providerCodes: string[];
      detail?: string;
    };

export interface VerifyTurnstileInput {
  token: unknown;
  secret: string | undefined;
  verifyUrl: string;
  remoteIp: string | null;
  /** The widget's action the token must carry; null accepts any (the verify endpoint without `action`). */
  expectedAction: string | null;
  /** Hostnames the widget may have been solved on; example.com is added while a test secret is set. */
  expectedHostnames: string[];
  idempotencyKey?: string;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  timeoutMs?: number;
}

const PROVIDER_CODES: Record<string, ErrorCode> = {
  "missing-input-secret": "turnstile_secret_missing",
  "invalid-input-secret": "turnstile_secret_invalid",
  "invalid-widget-id": "turnstile_secret_invalid",
  "invalid-parsed-secret": "turnstile_secret_invalid",
  "missing-input-response": "turnstile_token_missing",
  "invalid-input-response": "turnstile_invalid_token",
  "timeout-or-duplicate": "turnstile_expired_or_duplicate",
  "bad-request": "turnstile_bad_request",
  "invalid-idempotency-key": "turnstile_bad_request",
  "internal-error": "turnstile_internal_error",
};

type Attempt = { kind: "answer"; body: SiteverifyAnswer } | { kind: "retry"; code: ErrorCode; detail: string };

interface SiteverifyAnswer {
  success: boolean;
  hostname?: string;
  action?: string;
  challenge_ts?: string;
  "error-codes": string[];
}

/** Verifies a token with siteverify. Never throws: every failure is a `{ ok: false, code }`. */
export async function verifyTurnstile(input: VerifyTurnstileInput): Promise<TurnstileVerdict> {
  const { token, secret } = input;
  if (typeof token !== "string" || token.trim() === "") return refuse("turnstile_token_missing");
  if (token.length > MAX_TOKEN_LENGTH) return refuse("turnstile_token_too_long");
  if (!secret) return refuse("turnstile_secret_missing", "TURNSTILE_SECRET_KEY is not set");
  if (!isAllowedProviderUrl(input.verifyUrl)) {
    return refuse("turnstile_verify_url_insecure", `refusing verify URL ${input.verifyUrl}`);
  }

  const body = new URLSearchParams({ secret, response: token });
  if (input.remoteIp) body.set("remoteip", input.remoteIp);
  // One key for every retry, so a retried call is not mistaken for a replayed token.
  body.set("idempotency_key", input.idempotencyKey ?? crypto.randomUUID());

  const doFetch = input.fetch ?? fetch;
  const sleep = input.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = Date.now() + Math.min(input.timeoutMs ?? TOTAL_TIMEOUT_MS, TOTAL_TIMEOUT_MS);

  let last: Attempt = { kind: "retry", code: "turnstile_timeout", detail: "no attempt made" };
  for (let attempt = 0; attempt <= MAX_RETRIES; attempt++) {
    if (attempt > 0) {
      const wait = BACKOFF_MS[attempt - 1] ?? 1000;
      if (Date.now() + wait >= deadline) break;
      await sleep(wait);
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) break;
    last = await callSiteverify(doFetch, input.verifyUrl, body, Math.min(ATTEMPT_TIMEOUT_MS, remaining));
    if (last.kind === "answer") return judge(last.body, input, secret);
  }
  return { ok: false, code: last.code, retryable: true, providerCodes: [], detail: last.detail };
}

async function callSiteverify(doFetch: typeof fetch, url: string, body: URLSearchParams, timeoutMs: number): Promise<Attempt> {
  let response: Response;
  try {
    response = await doFetch(url, {
      method: "POST",
      body: body.toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    return timedOut
      ? { kind: "retry", code: "turnstile_timeout", detail: `no answer within ${timeoutMs} ms` }
      : { kind: "retry", code: "turnstile_network_error", detail: String(error) };
  }
  if (!response.ok) {
    await response.body?.cancel();
    return { kind: "retry", code: "turnstile_provider_error", detail: `HTTP ${response.status}` };
  }
  let parsed: unknown;
  try {
    parsed = await response.json();
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    return timedOut
      ? { kind: "retry", code: "turnstile_timeout", detail: "body did not arrive in time" }
      : { kind: "retry", code: "turnstile_bad_response", detail: "answer is not JSON" };
  }
  const answer = parseAnswer(parsed);
  if (!answer) return { kind: "retry", code: "turnstile_bad_response", detail: "answer has no success flag" };
  // internal-error is the provider's own "try again"; anything else is a final verdict.
  if (!answer.success && answer["error-codes"].includes("internal-error")) {
    return { kind: "retry", code: "turnstile_internal_error", detail: "provider internal-error" };
  }
  return { kind: "answer", body: answer };
}

function parseAnswer(value: unknown): SiteverifyAnswer | null {
  if (typeof value !== "object" || value === null) return null;
  const v = value as Record<string, unknown>;
  if (typeof v.success !== "boolean") return null;
  const codes = Array.isArray(v["error-codes"]) ? v["error-codes"].filter((c) => typeof c === "string") : [];
  return {
    success: v.success,
    hostname: typeof v.hostname === "string" ? v.hostname : undefined,
    action: typeof v.action === "string" ? v.action : undefined,
    challenge_ts: typeof v.challenge_ts === "string" ? v.challenge_ts : undefined,
    "error-codes": codes,
  };
}

function judge(answer: SiteverifyAnswer, input: VerifyTurnstileInput, secret: string): TurnstileVerdict {
  const providerCodes = answer["error-codes"];
  if (answer.success !== true) {
    const code = providerCodes.map((c) => PROVIDER_CODES[c]).find(Boolean) ?? "turnstile_rejected";
    return { ok: false, code, retryable: false, providerCodes };
  }
  const hostnames = allowedHostnames(input.expectedHostnames, secret);
  if (!answer.hostname || !hostnames.includes(answer.hostname.toLowerCase())) {
    return refuse("turnstile_hostname_mismatch", `hostname ${answer.hostname ?? "(none)"} not allowed`);
  }
  // Cloudflare's dummy secrets answer without an action, so only then may it be absent.
  const actionAbsentUnderTestSecret = TEST_SECRET_PATTERN.test(secret) && !answer.action;
  if (input.expectedAction !== null && answer.action !== input.expectedAction && !actionAbsentUnderTestSecret) {
    return refuse("turnstile_action_mismatch", `action ${answer.action ?? "(none)"} != ${input.expectedAction}`);
  }
  return {
    ok: true,
    hostname: answer.hostname,
    action: answer.action ?? "",
    challengeTs: answer.challenge_ts ?? "",
  };
}

function allowedHostnames(expected: string[], secret: string): string[] {
  const list = expected.map((h) => h.toLowerCase());
  return TEST_SECRET_PATTERN.test(secret) ? [...list, TEST_HOSTNAME] : list;
}

function refuse(code: ErrorCode, detail?: string): TurnstileVerdict {
  return { ok: false, code, retryable: false, providerCodes: [], detail };
}

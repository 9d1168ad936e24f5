import type { VisitorErrorCode } from "~/lib/http/errors";

// Many codes share one message (every captcha failure that a new token fixes says the same), so a
// translation names each shared message once and this spreads it over its codes, as errors.ts does.

const CAPTCHA_RETRY = [
  "turnstile_token_too_long",
  "turnstile_invalid_token",
  "turnstile_expired_or_duplicate",
  "turnstile_hostname_mismatch",
  "turnstile_action_mismatch",
  "turnstile_rejected",
] as const;
const CAPTCHA_UNAVAILABLE = [
  "turnstile_timeout",
  "turnstile_network_error",
  "turnstile_bad_response",
  "turnstile_provider_error",
  "turnstile_internal_error",
] as const;
const SERVER_PROBLEM = [
  "uploads_not_configured",
  "turnstile_secret_missing",
  "turnstile_secret_invalid",
  "turnstile_bad_request",
  "turnstile_verify_url_insecure",
  "form_signing_secret_missing",
] as const;
type Shared = (typeof CAPTCHA_RETRY)[number] | (typeof CAPTCHA_UNAVAILABLE)[number] | (typeof SERVER_PROBLEM)[number];

export type VisitorErrorTexts = Record<Exclude<VisitorErrorCode, Shared>, string> & {
  captchaRetry: string;
  captchaUnavailable: string;
  serverProblem: string;
};

/** Every visitor-facing code's message in one language. */
export function visitorErrors({
  captchaRetry,
  captchaUnavailable,
  serverProblem,
  ...own
}: VisitorErrorTexts): Record<VisitorErrorCode, string> {
  const spread = (codes: readonly Shared[], message: string) => Object.fromEntries(codes.map((code) => [code, message]));
  return {
    ...own,
    ...spread(CAPTCHA_RETRY, captchaRetry),
    ...spread(CAPTCHA_UNAVAILABLE, captchaUnavailable),
    ...spread(SERVER_PROBLEM, serverProblem),
  } as Record<VisitorErrorCode, string>;
}

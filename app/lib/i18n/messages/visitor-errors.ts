import {
  CAPTCHA_RETRY,
  CAPTCHA_UNAVAILABLE,
  ERRORS,
  SERVER_MISCONFIGURED,
  VISITOR_ERROR_CODES,
  type VisitorErrorCode,
} from "~/lib/http/errors";

// Many codes share one message (every captcha failure that a new token fixes says the same), so a
// translation names each shared message once and this spreads it over the codes that share it in
// English (errors.ts).

const SHARED = { captchaRetry: CAPTCHA_RETRY, captchaUnavailable: CAPTCHA_UNAVAILABLE, serverProblem: SERVER_MISCONFIGURED };
type SharedName = keyof typeof SHARED;

/** The visitor-facing codes whose English message is one of the shared ones. */
type Shared =
  | "turnstile_token_too_long"
  | "turnstile_invalid_token"
  | "turnstile_expired_or_duplicate"
  | "turnstile_hostname_mismatch"
  | "turnstile_action_mismatch"
  | "turnstile_rejected"
  | "turnstile_timeout"
  | "turnstile_network_error"
  | "turnstile_bad_response"
  | "turnstile_provider_error"
  | "turnstile_internal_error"
  | "uploads_not_configured"
  | "turnstile_secret_missing"
  | "turnstile_secret_invalid"
  | "turnstile_bad_request"
  | "turnstile_verify_url_insecure"
  | "form_signing_secret_missing";

export type VisitorErrorTexts = Record<Exclude<VisitorErrorCode, Shared>, string> & Record<SharedName, string>;

/** Every visitor-facing code's message in one language. */
export function visitorErrors(texts: VisitorErrorTexts): Record<VisitorErrorCode, string> {
  const own = texts as Record<string, string>;
  return Object.fromEntries(
    VISITOR_ERROR_CODES.map((code) => {
      const shared = (Object.keys(SHARED) as SharedName[]).find((name) => ERRORS[code].message === SHARED[name]);
      return [code, own[shared ?? code]!];
    }),
  ) as Record<VisitorErrorCode, string>;
}

// The error catalogue: every refusal carries one of these codes; docs/errors.md is generated from it
// (`npm run docs:errors`). Client-safe.

import { ROUTER_ERRORS } from "~/lib/http/router-errors";

// Messages many codes share; a translation names each once (app/lib/i18n/messages/visitor-errors.ts).
export const CAPTCHA_RETRY = "The captcha check failed or expired — please try again.";
export const CAPTCHA_UNAVAILABLE = "We could not verify you right now — try again in a minute.";
export const SERVER_MISCONFIGURED = "This form is not available right now because of a server problem.";

export const ERRORS = {
  body_too_large: { status: 413, message: "What you sent is too large (the limit is 64 KiB)." },
  validation_failed: { status: 422, message: "Some fields need your attention." },
  form_not_found: { status: 404, message: "There is no form with that name." },
  not_found: ROUTER_ERRORS.not_found,
  method_not_allowed: ROUTER_ERRORS.method_not_allowed,
  unsupported_media_type: {
    status: 415,
    message: "Send the form as JSON, URL-encoded or multipart form data.",
  },
  malformed_body: ROUTER_ERRORS.malformed_body,
  too_many_fields: { status: 413, message: "What you sent has too many fields (the limit is 100)." },
  invalid_text: {
    status: 400,
    message: "What you sent contains characters that cannot be kept (broken encoding or control characters).",
  },
  file_not_accepted: { status: 415, message: "This form does not take files: send it without attachments." },
  // uploads (docs/forms.md#file-fields)
  file_too_large: { status: 413, message: "A file is larger than this form takes: the limits are shown next to the field." },
  upload_too_large: {
    status: 413,
    message: "The files together are larger than this form takes: the limits are shown next to each file field.",
  },
  uploads_unavailable: {
    status: 503,
    message: "We could not store your files right now, so nothing was saved. Please try again in a minute.",
  },
  uploads_not_configured: { status: 500, message: SERVER_MISCONFIGURED },
  file_link_expired: {
    status: 410,
    message: "This download link has expired. Open the submission in the Gatepost console to download the file.",
  },
  turnstile_token_missing: {
    status: 400,
    message: "Please complete the captcha check before sending.",
  },
  turnstile_token_too_long: { status: 400, message: CAPTCHA_RETRY },
  turnstile_invalid_token: { status: 400, message: CAPTCHA_RETRY },
  turnstile_expired_or_duplicate: { status: 400, message: CAPTCHA_RETRY },
  turnstile_hostname_mismatch: { status: 400, message: CAPTCHA_RETRY },
  turnstile_action_mismatch: { status: 400, message: CAPTCHA_RETRY },
  turnstile_rejected: { status: 400, message: CAPTCHA_RETRY },
  turnstile_timeout: { status: 503, message: CAPTCHA_UNAVAILABLE },
  turnstile_network_error: { status: 503, message: CAPTCHA_UNAVAILABLE },
  turnstile_bad_response: { status: 503, message: CAPTCHA_UNAVAILABLE },
  turnstile_provider_error: { status: 503, message: CAPTCHA_UNAVAILABLE },
  turnstile_internal_error: { status: 503, message: CAPTCHA_UNAVAILABLE },
  turnstile_secret_missing: { status: 500, message: SERVER_MISCONFIGURED },
  turnstile_secret_invalid: { status: 500, message: SERVER_MISCONFIGURED },
  turnstile_bad_request: { status: 500, message: SERVER_MISCONFIGURED },
  turnstile_verify_url_insecure: { status: 500, message: SERVER_MISCONFIGURED },
  storage_unavailable: {
    status: 503,
    message: "Our database is busy or out of reach, so nothing was saved or changed. Please try again in a minute.",
  },
  // outbox
  redelivery_unknown_submission: { status: 404, message: "There is no submission with that id to deliver again." },
  redelivery_no_destination: {
    status: 409,
    message:
      "This submission has no delivery to repeat: its form had no destination configured when it arrived, and a confirmation to the sender is never sent twice.",
  },
  // forms: origin, rate limits, idempotency, signed form stamps
  origin_not_allowed: { status: 403, message: "This form does not accept submissions from that site." },
  rate_limited: {
    status: 429,
    message: "Too many submissions from your network — please wait a little and try again.",
  },
  idempotency_key_invalid: {
    status: 400,
    message: "The Idempotency-Key must be 1 to 255 visible ASCII characters.",
  },
  idempotency_key_reused: {
    status: 422,
    message: "This submission was already sent with different answers. Send the form again to make it a new one.",
  },
  form_expired: { status: 400, message: "This form was open for too long. Please check your answers and send it again." },
  form_signing_secret_missing: { status: 500, message: SERVER_MISCONFIGURED },
  form_archived: { status: 410, message: "This form no longer takes submissions." },
  // spam (docs/forms.md#spam)
  spam_refused: { status: 422, message: "This message cannot be sent through this form. Reword it, or reach the site another way." },
  spam_mark_conflict: { status: 409, message: "Someone else marked submissions at the same moment. Mark them again." },
  spam_mark_invalid: { status: 422, message: 'Send {"as": "spam"} or {"as": "ham"}.' },
  // admin
  admin_closed: {
    status: 503,
    message: "The operator console is closed until a password or Cloudflare Access is configured.",
  },
  admin_sign_in_failed: { status: 401, message: "That password is not right." },
  admin_rate_limited: {
    status: 429,
    message:
      "Too many sign-in attempts from here. Try again once the wait given (Retry-After) has passed; signing in successfully does not count.",
  },
  admin_check_required: {
    status: 429,
    message: "Many sign-in attempts are being made on this site right now. Complete the check below, then sign in again.",
  },
  admin_unauthenticated: { status: 401, message: "Sign in to the operator console first." },
  admin_forbidden: { status: 403, message: "Your role can only read. Ask an admin to do this." },
  admin_cross_origin: { status: 403, message: "This action must be sent from the operator console itself." },
  admin_not_quarantined: { status: 409, message: "This submission is not in quarantine." },
  admin_bad_request: { status: 400, message: "That request to the operator console is not complete." },
  search_too_many_words: { status: 400, message: "A search takes at most 20 different words: leave some out and search again." },
  // console forms and the admin API
  form_definition_invalid: { status: 422, message: "The form definition has problems: each one is listed." },
  form_condition_order: {
    status: 422,
    message:
      "A condition can only read fields that come before its own field, so the answers decide in one pass and no cycle can form: move the field it reads up, or the field with the condition down.",
  },
  form_defined_in_code: { status: 409, message: "This form is defined by a file in app/forms/: change it there." },
  form_exists: { status: 409, message: "There is already a form with that id." },
  form_limit_reached: {
    status: 409,
    message:
      "There are already 200 console forms, the most one deployment keeps (archived ones count, since they keep their submissions). Edit one of them instead.",
  },
  form_id_settings_clash: {
    status: 409,
    message:
      "That form id would share a setting's name with another form's (its settings are named after the id, and one destination's setting name ends another's). Choose an id that does not end in a part of a setting's name.",
  },
  form_draft_missing: { status: 409, message: "There is no draft to publish: save one first." },
  form_publish_conflict: { status: 409, message: "Someone else published this form meanwhile. Reload it and publish again." },
  form_field_names_in_use: {
    status: 409,
    message:
      "Fields that already hold data would be renamed or removed, and webhook receivers depend on field names. Confirm to publish anyway.",
  },
  settings_encryption_key_missing: {
    status: 503,
    message: "Destinations can be kept in the console once its encryption key is set (docs/destinations.md).",
  },
  setting_set_by_environment: { status: 409, message: "This setting is set by the environment, which wins: change it there." },
  setting_invalid: { status: 422, message: "That value cannot be used for this setting." },
  embed_sites_invalid: { status: 422, message: "Nothing was saved: an origin is exactly scheme://host[:port]. Each problem is listed." },
  redelivery_invalid: {
    status: 422,
    message:
      "That redelivery cannot be done: give formId, optionally one destination kind (as docs/destinations.md names them) and a time range from/to in ISO 8601, from before to.",
  },
  admin_token_limit: { status: 409, message: "There are too many live API tokens: revoke one first." },
  // people (docs/people.md)
  person_invalid: { status: 422, message: 'Give one e-mail address as "email" and a role, "admin" or "viewer".' },
  person_exists: { status: 409, message: "That address already has a person or an open invitation: remove it first to invite again." },
  person_limit: { status: 409, message: "There are too many people: remove someone first." },
  person_not_found: { status: 404, message: "There is no such person (or they were removed already)." },
  person_last_admin: {
    status: 409,
    message: "You are the last admin: make someone else an admin first, so the console keeps one.",
  },
  invitation_invalid: {
    status: 410,
    message:
      "This invitation cannot be used: it was used already, it expired (after a day) or it was withdrawn. Ask an admin for a new one.",
  },
  passkey_failed: { status: 401, message: "That passkey did not sign you in. Try again, or sign in with your e-mail and password." },
  passkey_limit: { status: 409, message: "You have the most passkeys one person keeps (10): remove one first." },
  passkey_needs_person: { status: 403, message: "Passkeys belong to a person: sign in with your own account to add one." },
  person_password_weak: { status: 422, message: "Choose a password of at least 12 characters, and type it the same way twice." },
  // subscriptions by API (REST hooks, docs/api.md#subscriptions)
  hook_invalid: {
    status: 422,
    message:
      'That subscription cannot be made: give url (https, to a public host), formId and event "submission.accepted". Each problem is listed.',
  },
  hook_limit_reached: { status: 409, message: "This form already has 50 subscriptions, the most it keeps: delete one first." },
  hook_not_found: { status: 404, message: "There is no live subscription with that id." },
  export_storage_missing: {
    status: 503,
    message: "Exports are built in the R2 bucket bound as UPLOADS, which this deployment does not have (docs/deploy.md).",
  },
  export_jobs_limit: {
    status: 429,
    message: "You have 3 exports still being prepared: wait for one to finish, then export again.",
  },
  export_expired: { status: 410, message: "This export is no longer kept: files go a day after they were asked for. Export again." },
  admin_body_too_large: { status: 413, message: "What you sent to the admin API is too large (the limit is 256 KiB)." },
  internal_error: ROUTER_ERRORS.internal_error,
  // lazy route discovery (/__manifest, ADR 055)
  route_discovery_too_large: { status: 400, message: "That request asks for more routes than any page here links to." },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** The codes a form's visitor can meet, translated into every language; the rest speak English to operators and developers. */
export const VISITOR_ERROR_CODES = [
  "body_too_large",
  "validation_failed",
  "form_not_found",
  "not_found",
  "method_not_allowed",
  "unsupported_media_type",
  "malformed_body",
  "too_many_fields",
  "invalid_text",
  "file_not_accepted",
  "file_too_large",
  "upload_too_large",
  "uploads_unavailable",
  "uploads_not_configured",
  "turnstile_token_missing",
  "turnstile_token_too_long",
  "turnstile_invalid_token",
  "turnstile_expired_or_duplicate",
  "turnstile_hostname_mismatch",
  "turnstile_action_mismatch",
  "turnstile_rejected",
  "turnstile_timeout",
  "turnstile_network_error",
  "turnstile_bad_response",
  "turnstile_provider_error",
  "turnstile_internal_error",
  "turnstile_secret_missing",
  "turnstile_secret_invalid",
  "turnstile_bad_request",
  "turnstile_verify_url_insecure",
  "storage_unavailable",
  "origin_not_allowed",
  "rate_limited",
  "idempotency_key_reused",
  "form_expired",
  "form_signing_secret_missing",
  "form_archived",
  "spam_refused",
  "internal_error",
] as const satisfies readonly ErrorCode[];
export type VisitorErrorCode = (typeof VISITOR_ERROR_CODES)[number];

export function isVisitorErrorCode(code: ErrorCode): code is VisitorErrorCode {
  return (VISITOR_ERROR_CODES as readonly string[]).includes(code);
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERRORS, value);
}

/** Codes that mean "get a fresh captcha token and try again". */
export function isCaptchaError(code: ErrorCode): boolean {
  return code.startsWith("turnstile_");
}

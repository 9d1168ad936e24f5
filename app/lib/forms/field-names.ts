// Names Gatepost itself posts beside a form's own fields. Client-safe, so the page renders the same
// names the server reads; check.ts keeps form fields from using them.

/** The Turnstile token, as the widget names it. */
export const TOKEN_FIELD = "cf-turnstile-response";
/** Hidden trap on Gatepost's own pages: people never fill it. */
export const HONEYPOT_FIELD = "_gp_hp";
/** Signed render time of Gatepost's own pages. */
export const STAMP_FIELD = "_gp_ts";
/** The rendered form's submission id: an idempotency key for a double send. */
export const SUBMISSION_ID_FIELD = "_gp_sid";
/** The optional trap other sites may add to their own forms (documented in docs/api.md). */
export const PLAIN_HONEYPOT_FIELD = "_gotcha";

export const RESERVED_FIELDS: ReadonlySet<string> = new Set([
  TOKEN_FIELD,
  HONEYPOT_FIELD,
  STAMP_FIELD,
  SUBMISSION_ID_FIELD,
  PLAIN_HONEYPOT_FIELD,
]);

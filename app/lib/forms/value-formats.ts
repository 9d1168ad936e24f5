// The shapes Gatepost accepts for e-mail and web addresses, published in schema.json as `pattern`, so receivers
// agree (JSON Schema's `email` and `uri` are ASCII-only). Written in what RE2 and JavaScript compile alike (ADR 113).

const SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff";
const NOT_IN_ADDRESS = `${SPACE}@"<>\\(\\)\\[\\]\\\\,;:`;

/** The longest address (RFC 5321's path less its brackets): with it, the domain is within its 253. */
export const EMAIL_MAX_LENGTH = 254;

/** One address, international characters allowed; as published (a RegExp's `source` would escape U+2028 again). */
export const EMAIL_PATTERN = `^[^${NOT_IN_ADDRESS}]{1,64}@[^${NOT_IN_ADDRESS}.]+(\\.[^${NOT_IN_ADDRESS}.]+)+$`;
export const EMAIL_ADDRESS = new RegExp(EMAIL_PATTERN, "u");

/** Whether `text` is one address Gatepost stores: its shape, and at most EMAIL_MAX_LENGTH characters. */
export function isEmailAddress(text: string): boolean {
  return [...text].length <= EMAIL_MAX_LENGTH && EMAIL_ADDRESS.test(text);
}

/** Http(s) in any case, no spaces or control characters (the URL parser would drop some silently); the parser decides the rest. */
export const WEB_PATTERN = "^[Hh][Tt][Tt][Pp][Ss]?:[^\\x00-\\x20\\x7f]+$";
export const WEB_ADDRESS = new RegExp(WEB_PATTERN, "u");

// The shapes Gatepost itself accepts for e-mail and web addresses, as patterns: validation tests values
// with them, and a form's schema.json publishes their sources as `pattern`, so every receiver's validator
// agrees with Gatepost (JSON Schema's `email` and `uri` formats are ASCII-only: they would refuse
// zoë@example.org, which Gatepost stores). They are written in what RE2 (Go, Rust, re2js) and JavaScript
// (`u` and `v`) all compile alike (ADR 113): no lookaround, no \s or \u, every class character literal.

/** JavaScript's white space (`\s`) spelled out: RE2's `\s` is ASCII only, and `\u` is not RE2's spelling. */
const SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff";
/** What no part of an address holds: white space, quotes, brackets, commas (escaped as a `v` class needs). */
const NOT_IN_ADDRESS = `${SPACE}@"<>\\(\\)\\[\\]\\\\,;:`;

/** The longest address (RFC 5321's path less its brackets): with it, the domain is within its 253. */
export const EMAIL_MAX_LENGTH = 254;

/**
 * One address: no spaces, quotes, brackets or commas, international characters allowed. The pattern as
 * published (a RegExp's `source` would spell U+2028 and newlines as \u and \n escapes again).
 */
export const EMAIL_PATTERN = `^[^${NOT_IN_ADDRESS}]{1,64}@[^${NOT_IN_ADDRESS}.]+(\\.[^${NOT_IN_ADDRESS}.]+)+$`;
export const EMAIL_ADDRESS = new RegExp(EMAIL_PATTERN, "u");

/** Whether `text` is one address Gatepost stores: its shape, and at most EMAIL_MAX_LENGTH characters. */
export function isEmailAddress(text: string): boolean {
  return [...text].length <= EMAIL_MAX_LENGTH && EMAIL_ADDRESS.test(text);
}

/**
 * What a stored web address starts and is made of: http(s) in any case, and no spaces or control
 * characters (the URL parser would drop some silently, so a value could say one thing and open another).
 * The URL parser decides the rest.
 */
export const WEB_PATTERN = "^[Hh][Tt][Tt][Pp][Ss]?:[^\\x00-\\x20\\x7f]+$";
export const WEB_ADDRESS = new RegExp(WEB_PATTERN, "u");

// The shapes Gatepost itself accepts for e-mail and web addresses, as ECMAScript patterns: validation
// tests values with them, and a form's schema.json publishes their sources as `pattern`, so every
// receiver's validator agrees with Gatepost (JSON Schema's `email` and `uri` formats are ASCII-only:
// they would refuse zoë@example.org, which Gatepost stores).

/** One address: no spaces, quotes, brackets or commas, international characters allowed. */
export const EMAIL_ADDRESS = /^[^\s@"<>()[\]\\,;:]{1,64}@(?=.{1,253}$)[^\s@"<>()[\]\\,;:.]+(\.[^\s@"<>()[\]\\,;:.]+)+$/u;

/**
 * What a stored web address starts and is made of: http(s) in any case, and no spaces or control
 * characters (the URL parser would drop some silently, so a value could say one thing and open another).
 * The URL parser decides the rest.
 */
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
export const WEB_ADDRESS = /^[Hh][Tt][Tt][Pp][Ss]?:[^\u0000-\u0020\u007f]+$/u;

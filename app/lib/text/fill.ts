// Fills a message's {placeholders}; a counting message is plural forms (Intl.PluralRules' categories) and `count`
// picks one. Client-safe and tiny, so a page formats its texts without a library.

/** A message by plural category; `other` is the one every language has. */
export type PluralText = Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };

/** One message: plain text with {name} placeholders, or plural forms of it. */
export type Message = string | PluralText;

const PLACEHOLDER = /\{(\w+)\}/g;

/** The message in `lang` with its placeholders filled; an unknown placeholder stays as written. */
export function fill(message: Message, vars: Record<string, string | number> = {}, lang = "en"): string {
  const template =
    typeof message === "string" ? message : (message[new Intl.PluralRules(lang).select(Number(vars.count ?? 0))] ?? message.other);
  return template.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(vars, name) ? String(vars[name]) : whole));
}

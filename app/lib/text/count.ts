// Counts in sentences: each caller names both English forms and Intl.PluralRules picks ("deliverys" never). Client-safe.

const PLURAL_RULES = new Intl.PluralRules("en");

/** Which of two forms English uses with `n`: `one` for 1, `other` for 0, 2, 5 … */
export function byCount<T>(n: number, one: T, other: T): T {
  return PLURAL_RULES.select(n) === "one" ? one : other;
}

/** The count with its noun: "1 delivery", "5 deliveries". */
export function countOf(n: number, one: string, other: string): string {
  return `${n} ${byCount(n, one, other)}`;
}

/** A wait as a person reads it, never shorter than `seconds`: "45 seconds", "1 minute", "15 minutes". */
export function waitOf(seconds: number): string {
  const whole = Math.max(1, Math.ceil(seconds));
  return whole < 60 ? countOf(whole, "second", "seconds") : countOf(Math.ceil(whole / 60), "minute", "minutes");
}

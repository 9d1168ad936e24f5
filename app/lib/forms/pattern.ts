import { RE2JS } from "re2js";
import safeRegex from "safe-regex2";

// A field's `pattern` is typed by whoever writes the form, in a file or in the console, and run on what
// every visitor sends. It must never make validation super-linear (ADR 044), so it is held twice:
// - Gatepost matches it with RE2 (re2js, a port of Google's linear-time engine), never with the
//   backtracking RegExp: whatever the pattern, a match costs time linear in the input. RE2 has no
//   backreferences or lookaround, so a pattern using them is refused rather than bounded by hope.
// - Receivers check payloads against /f/:id/schema.json with backtracking engines (JavaScript's RegExp,
//   Ajv, @cfworker/json-schema), so the catastrophic shapes those engines know (nested repetition such
//   as `(a+)+`, star height above one, or many repetitions) are refused too, by safe-regex2.
// The pattern must also compile as a JavaScript `u` regular expression, the dialect of JSON Schema's
// `pattern` as receivers run it.

/** The longest pattern a definition may hold. */
export const MAX_PATTERN_LENGTH = 200;
/** safe-regex2's bound on repetitions in one pattern. */
const MAX_REPETITIONS = 10;

/** Why `pattern` is refused, in words for the form's author; null when it is safe to use. */
export function patternProblem(pattern: string): string | null {
  if (pattern.length === 0) return "is empty";
  if (pattern.length > MAX_PATTERN_LENGTH) return `is longer than ${MAX_PATTERN_LENGTH} characters`;
  try {
    new RegExp(pattern, "u");
  } catch {
    return "is not a valid regular expression";
  }
  if (/\(\?<?[=!]/.test(pattern) || /\\[1-9]|\\k</.test(pattern)) {
    return "uses lookaround or a backreference, which cannot be matched in linear time";
  }
  if (!safeRegex(pattern, { limit: MAX_REPETITIONS })) {
    return "has nested or too many repetitions (such as (a+)+), which can take exponential time in receivers' validators";
  }
  try {
    RE2JS.compile(anchored(pattern));
  } catch {
    return "uses syntax the linear-time engine (RE2) does not support";
  }
  return null;
}

function anchored(pattern: string): string {
  return `^(?:${pattern})$`;
}

// Compiled patterns are kept per isolate: a form's few patterns are compiled once, not per post.
const MAX_COMPILED = 64;
const compiled = new Map<string, RE2JS>();

/**
 * True when the whole of `text` matches `pattern`, in time linear in `text`. The pattern must have
 * passed patternProblem (every definition's check does that); one that RE2 cannot compile matches nothing.
 */
export function matchesPattern(pattern: string, text: string): boolean {
  let re = compiled.get(pattern);
  if (!re) {
    try {
      re = RE2JS.compile(anchored(pattern));
    } catch {
      return false;
    }
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(pattern, re);
  }
  return re.matches(text);
}

/** The pattern as JSON Schema's (unanchored) `pattern` keyword must say it to mean the whole value. */
export function schemaPattern(pattern: string): string {
  return anchored(pattern);
}

import { RE2JS } from "re2js";
import { ambiguityProblem } from "~/lib/forms/pattern-ambiguity";
import { parsePattern, type PatternNode } from "~/lib/forms/pattern-syntax";

// A field's `pattern` is typed by whoever writes the form, in a file or in the console, and run on what
// every visitor sends, then again in receivers' validators on /f/:id/schema.json. It must mean the same
// everywhere and be linear everywhere (docs/decisions/089-patterns-in-a-shared-subset.md):
// - it is written in the language RE2 and ECMAScript (`u` and `v` flags) read alike
//   (pattern-syntax.ts), so Gatepost never stores a value its own schema.json calls invalid;
// - its position automaton is deterministic and unambiguous (pattern-ambiguity.ts), so a backtracking
//   validator's work is linear in the value too;
// - Gatepost itself matches it with RE2 (re2js, a port of Google's linear-time engine), never RegExp.

/** The longest pattern a definition may hold. */
export const MAX_PATTERN_LENGTH = 200;
/**
 * The largest program a pattern may compile to (patternSize): about what `[a-z]{0,1000}` twice makes.
 * RE2 builds and every engine holds a program of about this size, so it bounds what checking, compiling
 * and publishing a pattern costs, counted, not timed (ADR 113).
 */
export const MAX_PATTERN_SIZE = 4000;

/**
 * The size of the program RE2 compiles `node` to, as RE2 writes counts out: one step per character
 * set, one more per alternative and per optional copy; `x{2,5}` is two copies of x and three optional ones.
 */
export function patternSize(node: PatternNode): number {
  switch (node.kind) {
    case "set":
      return 1;
    case "seq":
      return node.items.reduce((sum, item) => sum + patternSize(item), 0);
    case "alt":
      return node.branches.reduce((sum, branch) => sum + patternSize(branch) + 1, -1);
    case "repeat": {
      const body = patternSize(node.body);
      const optional = node.max === null ? 1 : node.max - node.min;
      return node.min * body + optional * (body + 1);
    }
  }
}

/** Why `pattern` is refused, in words for the form's author; null when it is in the shared language and linear. */
export function patternProblem(pattern: string): string | null {
  if (pattern.length === 0) return "is empty";
  if (pattern.length > MAX_PATTERN_LENGTH) return `is longer than ${MAX_PATTERN_LENGTH} characters`;
  const parsed = parsePattern(pattern);
  if (!parsed.ok) return parsed.problem;
  const size = patternSize(parsed.node);
  if (size > MAX_PATTERN_SIZE) {
    return `costs too much to check: with its counts written out it makes ${size} steps, more than ${MAX_PATTERN_SIZE} (use smaller {n,m} counts, or fewer; maxLength bounds a value's length)`;
  }
  const ambiguity = ambiguityProblem(parsed.node);
  if (ambiguity) return ambiguity;
  // The parser admits only syntax all three read; each engine compiling it is the second lock.
  try {
    new RegExp(anchored(pattern), "u");
    if (supportsUnicodeSets()) new RegExp(anchored(pattern), "v");
  } catch {
    return "is not a valid regular expression in JavaScript";
  }
  try {
    RE2JS.compile(anchored(pattern));
  } catch {
    return "is too large for the linear-time engine (RE2)";
  }
  return null;
}

/**
 * The rules a published version's pattern passed in its day (ADR 044), for versions published before
 * the shared language: bounded, and compiled by RE2 and as a JavaScript `u` expression. Null when met.
 */
export function publishedPatternProblem(pattern: string): string | null {
  if (pattern.length === 0 || pattern.length > MAX_PATTERN_LENGTH) return "is empty or too long";
  try {
    new RegExp(anchored(pattern), "u");
    RE2JS.compile(anchored(pattern));
    return null;
  } catch {
    return "does not compile in RE2 and JavaScript";
  }
}

let unicodeSets: boolean | null = null;

/** Whether this runtime knows RegExp's `v` flag (Node 20 and workerd do). */
function supportsUnicodeSets(): boolean {
  if (unicodeSets === null) {
    try {
      new RegExp("", "v");
      unicodeSets = true;
    } catch {
      unicodeSets = false;
    }
  }
  return unicodeSets;
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

/**
 * The `pattern` keyword for JSON Schema (anchored: the keyword alone matches anywhere in the value), or,
 * for a pattern published before the shared language (ADR 089) that is outside it, no `pattern` and the
 * reason in a `$comment`: a receiver's validator must never read it differently, or take long on it.
 */
export function schemaPatternKeywords(pattern: string): { pattern: string } | { $comment: string } {
  const problem = patternProblem(pattern);
  if (problem === null) return { pattern: anchored(pattern) };
  return {
    $comment: `Gatepost checks this field against a pattern that is not published here: it ${problem} (docs/forms.md#patterns).`,
  };
}

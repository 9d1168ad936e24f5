import { RE2JS } from "re2js";
import { ambiguityProblem } from "~/lib/forms/pattern-ambiguity";
import { parsePattern, type PatternNode } from "~/lib/forms/pattern-syntax";

// A field's `pattern` runs on every visitor's value here and in receivers' validators (schema.json), so it must
// mean the same and be linear everywhere (ADR 089): the language RE2 and ECMAScript read alike (pattern-syntax.ts),
// an unambiguous automaton (pattern-ambiguity.ts), and RE2 (re2js), never RegExp, matching it here.

export const MAX_PATTERN_LENGTH = 200;
/** The largest program a pattern may compile to: it bounds checking, compiling and publishing, counted, not timed (ADR 113). */
export const MAX_PATTERN_SIZE = 4000;

/** RE2's program size: one step per character set, one more per alternative and optional copy (`x{2,5}`: 2 + 3). */
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

/** The rules a version published before the shared language passed in its day (ADR 044); null when met. */
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

const MAX_COMPILED = 64;
const compiled = new Map<string, RE2JS>();

/** True when the whole of `text` matches, in linear time; a pattern RE2 cannot compile matches nothing. */
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

/** The JSON Schema `pattern` (anchored), or for an old pattern outside the shared language (ADR 089) a `$comment` why not. */
export function schemaPatternKeywords(pattern: string): { pattern: string } | { $comment: string } {
  const problem = patternProblem(pattern);
  if (problem === null) return { pattern: anchored(pattern) };
  return {
    $comment: `Gatepost checks this field against a pattern that is not published here: it ${problem} (docs/forms.md#patterns).`,
  };
}

import type { CharSet, PatternNode } from "~/lib/forms/pattern-syntax";
import type { Random } from "./prng";

// Seeded random patterns in the shared language (ADR 089) and values for them, for the tests that
// compare engines (tests/unit/pattern-language.test.ts in Node, tests/workers/pattern-engines.test.ts
// in workerd): every run draws the same cases.

/** Where engines part: no-break space, line and paragraph separators, BOM, newlines, astral characters. */
export const TRICKY = ["\u00a0", "\u2028", "\u2029", "\ufeff", "\n", "\r", "\t", " ", "😀", "\u{10000}", "é", "ſ", "K"];
export const ALPHABET = ["a", "b", "c", "A", "Z", "0", "1", "9", "_", "-", "@", ".", ...TRICKY];

const ATOMS = [
  "a",
  "b",
  "c",
  "0",
  "-",
  "@",
  " ",
  "é",
  "😀",
  "\\d",
  "\\w",
  "\\D",
  "\\W",
  "\\.",
  "\\n",
  "[a-c]",
  "[^a]",
  "[0-9_]",
  "[^@ ]",
  "[\\d\\-]",
  "[é😀]",
  "[^\\w]",
  "[^\\d]",
];

export function randomPattern(r: Random, depth = 0): string {
  const roll = r.int(depth > 2 ? 2 : 6);
  if (roll <= 1) return r.pick(ATOMS);
  if (roll === 2) return Array.from({ length: 2 + r.int(2) }, () => randomPattern(r, depth + 1)).join("");
  if (roll === 3) return `(${randomPattern(r, depth + 1)}|${randomPattern(r, depth + 1)})`;
  const body = randomPattern(r, depth + 1);
  return `(?:${body})${r.pick(["?", "*", "+", "{2}", "{1,3}", "{0,2}", "{2,}"])}`;
}

/** A code point of `set`, often one of the tricky ones when the set holds it. */
function pickFrom(r: Random, set: CharSet): string {
  const tricky = TRICKY.map((c) => c.codePointAt(0)!).filter((cp) => set.some(([lo, hi]) => cp >= lo && cp <= hi));
  if (tricky.length > 0 && r.next() < 0.5) return String.fromCodePoint(r.pick(tricky));
  const [lo, hi] = r.pick(set);
  return String.fromCodePoint(Math.min(hi, lo + r.int(Math.min(hi - lo + 1, 200))));
}

/** A value the pattern should match, drawn from its tree, so both answers are often "yes". */
export function sample(r: Random, node: PatternNode): string {
  switch (node.kind) {
    case "set":
      return pickFrom(r, node.set);
    case "seq":
      return node.items.map((item) => sample(r, item)).join("");
    case "alt":
      return sample(r, r.pick(node.branches));
    case "repeat": {
      const count = node.min + r.int((node.max ?? node.min + 3) - node.min + 1);
      return Array.from({ length: count }, () => sample(r, node.body)).join("");
    }
  }
}

export function randomValue(r: Random): string {
  return Array.from({ length: r.int(9) }, () => r.pick(ALPHABET)).join("");
}

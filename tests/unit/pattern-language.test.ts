import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import { matchesPattern, patternProblem, schemaPatternKeywords } from "~/lib/forms/pattern";
import { parsePattern } from "~/lib/forms/pattern-syntax";
import { backtrackingMatch, StepLimit } from "../support/backtracking-matcher";
import { ALPHABET, randomPattern, randomValue, sample } from "../support/pattern-cases";
import { prng } from "../support/prng";

// ADR 089: a published pattern means the same in Gatepost (RE2) and in ECMAScript engines (JSON Schema's
// `pattern` with `u`, HTML's `pattern` attribute with `v`), and is linear in both. Held here by seeded
// random patterns and values compared across the three engines, and by a backtracking matcher's steps.

describe("the shared pattern language", () => {
  it("refuses the patterns that broke receivers or disagreed, saying why", () => {
    expect(patternProblem(".*.*.*.*.*.*.*.*.*")).toMatch(/uses `\.`, which RE2 and JavaScript read differently/);
    expect(patternProblem("(\\w|\\d)*!")).toMatch(/can take the same character two ways at one point/);
    expect(patternProblem("\\S+")).toMatch(/uses \\s or \\S, which RE2 and JavaScript read differently \(U\+00A0/);
    // What the refusals prevent: RE2 and JavaScript give different answers on the same value.
    expect(RE2JS.compile("^(?:\\S+)$").matches("\u00a0")).toBe(true);
    expect(/^(?:\S+)$/u.test("\u00a0")).toBe(false);
    expect(RE2JS.compile("^(?:.)$").matches("\u2028")).toBe(true);
    expect(/^(?:.)$/u.test("\u2028")).toBe(false);
  });

  it("refuses what it leaves out, each with its reason", () => {
    const cases: Array<[string, RegExp]> = [
      ["\\p{L}+", /uses \\p/],
      ["a\\b", /uses \\b/],
      ["\\u00e9", /uses \\u/],
      ["(?=a)a", /lookaround/],
      ["(?<n>a)", /lookaround, a named group/],
      ["(a)\\1", /uses \\1/],
      ["a+?", /lazy or possessive/],
      ["a{2}{3}", /repeats a repetition directly/],
      ["[a-z-]", /has - unescaped inside \[ \]/],
      ["[a-é]", /range beyond ASCII/],
      ["[&&a]", /an operator in JavaScript's v mode/],
      ["a^b", /uses \^ or \$ inside/],
      ["a{1001}", /more than 1000/],
      ["(a+)+", /more than one way/],
      ["(a?)*", /repeats something that can match nothing/],
      ["(a?|b?)", /two alternatives that can both match nothing/],
      ["a*a", /two ways at one point/],
      ["([a-z]+)*@", /more than one way|two ways/],
      ["[", /without its \]/],
    ];
    for (const [pattern, reason] of cases) expect(patternProblem(pattern), pattern).toMatch(reason);
    for (const pattern of ["[A-Z]{2}[0-9]{4}", "\\+?[0-9 ]{6,20}", "(ab|cd){1,3}", "\\d{5}(-\\d{4})?", "[^@]+@[^@]+", "^[a-z]+$", "😀+"]) {
      expect(patternProblem(pattern), pattern).toBeNull();
    }
  });

  // JavaScript's `v` mode is compared in workerd (tests/workers/pattern-engines.test.ts): Node 20's V8
  // 11.3 gets some repeated groups wrong in `v` mode (/^(?:[^a]x)+$/v refuses "xx"), which no pattern
  // language can avoid; current V8 (workerd, Chromium) does not.
  it("gives the same answer in RE2 and in JavaScript's u mode, for 150 random patterns and 30 values each", { timeout: 60_000 }, () => {
    const r = prng(37);
    let parsed = 0;
    let matched = 0;
    let compared = 0;
    let linear = 0;
    for (let i = 0; i < 150; i++) {
      const pattern = randomPattern(r);
      const tree = parsePattern(pattern);
      expect(tree.ok, `${pattern}: ${tree.ok ? "" : tree.problem}`).toBe(true);
      if (!tree.ok) continue;
      parsed++;
      const accepted = patternProblem(pattern) === null;
      if (accepted) linear++;
      const anchored = `^(?:${pattern})$`;
      const u = new RegExp(anchored, "u");
      const values = [...Array.from({ length: 15 }, () => sample(r, tree.node)), ...Array.from({ length: 15 }, () => randomValue(r))];
      for (const value of values) {
        const re2 = matchesPattern(pattern, value);
        expect(u.test(value), `${pattern} on ${JSON.stringify(value)} (u)`).toBe(re2);
        // The step-counting matcher below reads patterns as the engines do (for the linear ones it is used on).
        if (accepted) expect(backtrackingMatch(tree.node, value).matched, `${pattern} on ${JSON.stringify(value)} (tree)`).toBe(re2);
        compared++;
        if (re2) matched++;
      }
    }
    expect(parsed).toBe(150);
    expect(compared).toBe(4_500);
    // Both answers are well represented, and the tricky characters were drawn.
    expect(matched).toBeGreaterThan(1_000);
    expect(compared - matched).toBeGreaterThan(1_000);
    expect(linear).toBeGreaterThan(20);
  });
});

describe("linear in a backtracking engine too", () => {
  /** The steps a backtracking matcher takes on `value`, or Infinity past the limit. */
  function steps(pattern: string, value: string, limit = 2_000_000): number {
    const tree = parsePattern(pattern);
    if (!tree.ok) throw new Error(tree.problem);
    try {
      return backtrackingMatch(tree.node, value, limit).steps;
    } catch (error) {
      if (error instanceof StepLimit) return Infinity;
      throw error;
    }
  }

  it("sees the refused patterns' work explode (so the counter can tell)", () => {
    // Inputs of 30 characters that fail at the very end: the shape that took receivers 20–50 s.
    expect(steps("(\\w|\\d)*!", "1".repeat(30))).toBe(Infinity);
    expect(steps("(a+)+b", "a".repeat(30))).toBe(Infinity);
    expect(steps("[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*!", "a".repeat(60))).toBe(Infinity);
  });

  it("takes steps bounded by the pattern's size per character for every accepted pattern, on values up to 200 characters", () => {
    const r = prng(89);
    let accepted = 0;
    for (let i = 0; i < 3_000 && accepted < 150; i++) {
      const pattern = randomPattern(r);
      if (patternProblem(pattern) !== null) continue;
      accepted++;
      const tree = parsePattern(pattern);
      if (!tree.ok) throw new Error(pattern);
      const size = pattern.length;
      for (let n = 0; n < 6; n++) {
        // Long values that almost match: drawn from the pattern, repeated, then spoiled at the end.
        const unit = sample(r, tree.node) || r.pick(ALPHABET);
        const value = `${unit.repeat(Math.ceil(200 / Math.max(1, unit.length))).slice(0, 200)}${r.pick(["!", "", "\u2028", "a"])}`;
        const taken = steps(pattern, value);
        expect(taken, `${pattern} on ${value.length} characters`).toBeLessThanOrEqual(4 * size * size * ([...value].length + 1));
      }
    }
    expect(accepted).toBe(150);
  });

  // The matcher recurses once or more per character, so values stay a few hundred characters long: far
  // from the stack's limit, whatever the JIT does with its frames.
  it("holds common accepted shapes on long values that fail at the end", () => {
    for (const [pattern, value] of [
      ["[a-z0-9]+(-[a-z0-9]+)*", `${"ab-".repeat(70)}!`],
      ["[^@]+@[^@]+", `${"a".repeat(200)}`],
      ["(ab|cd){1,600}e", `${"ab".repeat(100)}`],
    ]) {
      expect(patternProblem(pattern), pattern).toBeNull();
      expect(steps(pattern, value, 10_000_000), pattern).toBeLessThan(20 * value.length);
    }
  });
});

describe("the schema of a pattern outside the shared language", () => {
  it("publishes no pattern, and says why in $comment (a keyword Ajv's strict mode knows)", () => {
    expect(schemaPatternKeywords("[A-Z]{2}")).toEqual({ pattern: "^(?:[A-Z]{2})$" });
    const legacy = schemaPatternKeywords("\\S+");
    expect(legacy).not.toHaveProperty("pattern");
    expect(legacy).toEqual({
      $comment: expect.stringMatching(/^Gatepost checks this field against a pattern that is not published here: it uses \\s or \\S/),
    });
  });
});

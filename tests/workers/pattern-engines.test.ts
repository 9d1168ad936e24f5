import { describe, expect, it } from "vitest";
import { matchesPattern, patternProblem } from "~/lib/forms/pattern";
import { parsePattern } from "~/lib/forms/pattern-syntax";
import { randomPattern, randomValue, sample } from "../support/pattern-cases";
import { prng } from "../support/prng";

// ADR 089 in workerd's current V8, the engine of a receiver on Workers and of Chromium's HTML `pattern`
// attribute (the `v` flag): a pattern in the shared language answers as RE2 does, in `u` and `v` mode.
// (Node 20's V8 11.3 has a `v`-mode bug with repeated groups; tests/unit/pattern-language.test.ts.)

describe("patterns in workerd's V8", () => {
  it("has the v mode that Node 20 lacks: a negated class in a repeated group", () => {
    expect(new RegExp("^(?:[^a]x)+$", "v").test("xx")).toBe(true);
  });

  it("gives RE2's answer in u and v mode, for 150 random patterns and 30 values each", { timeout: 60_000 }, () => {
    const r = prng(37);
    let compared = 0;
    let matched = 0;
    for (let i = 0; i < 150; i++) {
      const pattern = randomPattern(r);
      const tree = parsePattern(pattern);
      if (!tree.ok) throw new Error(`${pattern}: ${tree.problem}`);
      const anchored = `^(?:${pattern})$`;
      const [u, v] = [new RegExp(anchored, "u"), new RegExp(anchored, "v")];
      const values = [...Array.from({ length: 15 }, () => sample(r, tree.node)), ...Array.from({ length: 15 }, () => randomValue(r))];
      for (const value of values) {
        const re2 = matchesPattern(pattern, value);
        expect(u.test(value), `${pattern} on ${JSON.stringify(value)} (u)`).toBe(re2);
        expect(v.test(value), `${pattern} on ${JSON.stringify(value)} (v)`).toBe(re2);
        compared++;
        if (re2) matched++;
      }
    }
    expect(compared).toBe(4_500);
    expect(matched).toBeGreaterThan(1_000);
    expect(compared - matched).toBeGreaterThan(1_000);
  });

  it("refuses the three patterns of issue 37 here too", () => {
    for (const pattern of [".*.*.*.*.*.*.*.*.*", "(\\w|\\d)*!", "\\S+"]) expect(patternProblem(pattern), pattern).not.toBeNull();
  });
});

import { describe, expect, it, vi } from "vitest";
import type { FormDef } from "~/forms/schema";
import { checkFormDef } from "~/lib/forms/check";
import { formJsonSchema, formJsonSchemaText } from "~/lib/forms/json-schema";
import { MAX_PATTERN_SIZE, patternProblem, patternSize, schemaPatternKeywords } from "~/lib/forms/pattern";
import { parsePattern, type PatternNode } from "~/lib/forms/pattern-syntax";

function parsed(pattern: string): PatternNode {
  const result = parsePattern(pattern);
  if (!result.ok) throw new Error(result.problem);
  return result.node;
}

// Issue 51, D4: a console form with 196 characters of `a{1000}b{1000}…` made every anonymous
// schema.json cost about 50 ms in workerd, its patterns checked and compiled on every request. Now a
// pattern's cost is bounded at save by its size with counts written out (deterministic, no clock), and
// a form's schema is built once per definition, version and origin in an isolate (ADR 113).

vi.mock("~/lib/forms/pattern", async (importOriginal) => {
  const real = await importOriginal<typeof import("~/lib/forms/pattern")>();
  return { ...real, schemaPatternKeywords: vi.fn(real.schemaPatternKeywords) };
});

/** 28 letters each counted 1000 times, cut at 196 characters: the attack's pattern. */
const COSTLY = Array.from({ length: 28 }, (_, i) => `${String.fromCharCode(97 + (i % 26))}{1000}`)
  .join("")
  .slice(0, 196);

const form = (pattern: string): FormDef => ({
  id: "costly",
  title: "Costly",
  description: "A pattern.",
  fields: [{ name: "code", type: "text", label: "Code", hint: "A code.", pattern, required: true }],
  destinations: [],
  allowedOrigins: [],
  successMessage: "Thanks.",
  retentionDays: 30,
});

describe("a pattern's cost", () => {
  it("is refused at save past MAX_PATTERN_SIZE, counted with its repetitions written out", () => {
    expect(COSTLY.length).toBe(196);
    expect(patternProblem(COSTLY)).toMatch(/^costs too much to check: with its counts written out it makes 28000 steps, more than 4000/);
    expect(patternProblem("[a-z]{0,1000}[0-9]{0,1000}[A-Z]")).toMatch(/ 4001 steps, more than 4000/);
    expect(patternProblem("(ab|cd){1,1000}e")).toMatch(/ 6000 steps/);
    expect(patternProblem("[a-z]{0,1000}[0-9]{0,999}")).toBeNull();
    expect(patternProblem("(-[a-z]{9}){100}")).toBeNull();
    expect(patternProblem("[A-Z]{2}[0-9]{4}(-[0-9]{1,4})?")).toBeNull();
    expect(patternSize(parsed("[A-Z]{2}[0-9]{4}(-[0-9]{1,4})?"))).toBe(2 + 4 + 1 + (1 + 3 * 2) + 1);
    expect(patternSize(parsed("a|bc|d*"))).toBe(1 + 1 + 2 + 1 + 2);
    expect(MAX_PATTERN_SIZE).toBe(4000);
  });

  it("is named to the form's author by the definition check (form_definition_invalid)", () => {
    const checked = checkFormDef(form(COSTLY));
    expect(checked.ok).toBe(false);
    expect(checked.ok ? [] : checked.problems.join("\n")).toMatch(/costly\.code: pattern "a\{1000\}b\{1000\}.*" costs too much to check/);
  });

  it("is not published in schema.json for a version saved before the bound: a $comment says why", () => {
    const schema = formJsonSchema(form(COSTLY), "1", "https://forms.example.org") as { properties: { code: Record<string, unknown> } };
    expect(schema.properties.code.pattern).toBeUndefined();
    expect(schema.properties.code.$comment).toMatch(/costs too much to check/);
  });
});

describe("a form's schema", () => {
  it("is built once per definition, version and origin, then served as kept", () => {
    const spy = vi.mocked(schemaPatternKeywords);
    spy.mockClear();
    const costly = form(COSTLY);
    const first = formJsonSchemaText(costly, "7", "https://forms.example.org");
    expect(spy).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 5; i++) expect(formJsonSchemaText(form(COSTLY), "7", "https://forms.example.org")).toBe(first);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(JSON.parse(first)).toEqual(formJsonSchema(costly, "7", "https://forms.example.org"));
    // Another version, origin or definition is another schema.
    spy.mockClear();
    formJsonSchemaText(costly, "8", "https://forms.example.org");
    formJsonSchemaText(costly, "7", "https://other.example.org");
    formJsonSchemaText(form("[a-z]+"), "7", "https://forms.example.org");
    expect(spy).toHaveBeenCalledTimes(3);
  });
});

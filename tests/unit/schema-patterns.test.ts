import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import { FIELD_TYPES, type FieldDef, type FormDef } from "~/forms/schema";
import { formJsonSchema } from "~/lib/forms/json-schema";
import { EMAIL_PATTERN, isEmailAddress, WEB_PATTERN } from "~/lib/forms/value-formats";

// Every `pattern` a form's schema.json can publish compiles, and means the same, in RE2 (re2js: the
// engine Go's and Rust's regex crates follow) and in JavaScript with the `u` and `v` flags, as JSON
// Schema validators compile it (Ajv: `u`; validators on current engines: `v`). Issue 51, D3: the
// built-in e-mail and URL patterns used a lookahead and \u escapes, so no RE2 validator could take any
// schema with an e-mail or URL field (ADR 113).

const field = (type: FieldDef["type"], extra: Partial<FieldDef> = {}): FieldDef => ({
  name: `${type}Field`,
  type,
  label: type,
  ...(type === "select" ? { options: [{ value: "a", label: "A" }] } : {}),
  ...extra,
});

/** A form of every field type, each required and optional, one with an owner's pattern and one with a pre-ADR-089 pattern. */
const EVERY: FormDef = {
  id: "every",
  title: "Every field type",
  description: "One of each.",
  fields: [
    ...FIELD_TYPES.map((type) => field(type, { required: true })),
    ...FIELD_TYPES.map((type) => ({ ...field(type), name: `${type}Optional` })),
    { ...field("email", { pattern: "[a-z]+@example\\.org" }), name: "emailOwn" },
    { ...field("url", { pattern: "https://[a-z]+\\.example\\.org/[a-z]*" }), name: "urlOwn" },
    { ...field("text", { pattern: "(?=a)a" }), name: "legacy" },
  ],
  destinations: [],
  allowedOrigins: [],
  successMessage: "Thanks.",
  retentionDays: 30,
};

/** Every `pattern` keyword anywhere in a schema. */
function patternsOf(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(patternsOf);
  if (node === null || typeof node !== "object") return [];
  return Object.entries(node).flatMap(([key, value]) => (key === "pattern" && typeof value === "string" ? [value] : patternsOf(value)));
}

const published = [...new Set(patternsOf(formJsonSchema(EVERY, "1", "https://forms.example.org")))];

const VALUES = [
  "zoë@example.org",
  "a.b+c@sub.example.co.uk",
  "a@b",
  "a b@example.org",
  "a\u00a0b@example.org",
  "a\u2028b@example.org",
  "a\ufeffb@example.org",
  "a\u000bb@example.org",
  "a\u0085b@example.org",
  "a\u180eb@example.org",
  "𝒜@example.org",
  '"a"@example.org',
  "a@example..org",
  "http://example.org",
  "HTTPS://example.org/ü?x=1",
  "https://exa mple.org",
  "https://example.org/\u0000",
  "https://example.org/\u007f",
  "https://example.org/\u0080",
  "https://example.org/\u00a0",
  "ftp://example.org",
  "bob@example.org",
  "https://www.example.org/page",
  "0123456789abcdef".repeat(4),
];

describe("the patterns schema.json publishes", () => {
  it("include the built-in e-mail and URL shapes and the owner's, never one outside the shared language", () => {
    expect(published).toEqual(expect.arrayContaining([EMAIL_PATTERN, WEB_PATTERN, "^[0-9a-f]{64}$"]));
    expect(published.length).toBeGreaterThanOrEqual(5);
    expect(published.some((p) => p.includes("(?="))).toBe(false);
  });

  it.each(published.map((p) => [p]))("%j compiles in RE2 and in JavaScript's u and v, with no lookaround and no \\u or \\p", (pattern) => {
    expect(() => RE2JS.compile(pattern)).not.toThrow();
    expect(() => new RegExp(pattern, "u")).not.toThrow();
    expect(() => new RegExp(pattern, "v")).not.toThrow();
    expect(pattern).not.toMatch(/\(\?[=!<]/);
    expect(pattern).not.toMatch(/\\[uUpP]/);
  });

  it.each(published.map((p) => [p]))("%j answers every value as RE2 does, in u and v", (pattern) => {
    const re2 = RE2JS.compile(pattern);
    for (const value of VALUES) {
      const want = re2.matcher(value).find();
      expect(new RegExp(pattern, "u").test(value), `${pattern} u ${JSON.stringify(value)}`).toBe(want);
      expect(new RegExp(pattern, "v").test(value), `${pattern} v ${JSON.stringify(value)}`).toBe(want);
    }
  });
});

describe("the built-in address shapes", () => {
  it("take and refuse what they did before the rewrite", () => {
    const before = /^[^\s@"<>()[\]\\,;:]{1,64}@(?=.{1,253}$)[^\s@"<>()[\]\\,;:.]+(\.[^\s@"<>()[\]\\,;:.]+)+$/u;
    for (const value of VALUES) expect(isEmailAddress(value), JSON.stringify(value)).toBe(before.test(value));
    const long = `${"a".repeat(64)}@${"b".repeat(185)}.org`;
    expect(long.length).toBe(254);
    expect(isEmailAddress(long)).toBe(true);
    expect(isEmailAddress(`a${long}`)).toBe(false);
  });
});

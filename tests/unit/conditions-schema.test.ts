import { Validator } from "@cfworker/json-schema";
import { Ajv2020 } from "ajv/dist/2020";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { FormDef } from "~/forms/schema";
import { checkFormDef } from "~/lib/forms/check";
import { formJsonSchema } from "~/lib/forms/json-schema";
import { validateFields } from "~/lib/submit/validation";

// Issue #55: /f/:id/schema.json and the server agree on conditions. On generated payloads in the shape
// the server keeps (typed, trimmed values; any field present, null or absent; values for fields whose
// condition fails), two independent 2020-12 validators accept exactly the payloads the server accepts
// and keeps unchanged, and whatever the server keeps, they accept.

const FORM: FormDef = {
  id: "jobs",
  title: "Jobs",
  description: "Apply.",
  fields: [
    {
      name: "role",
      type: "select",
      label: "Role",
      required: true,
      options: [
        { value: "designer", label: "Designer" },
        { value: "developer", label: "Developer" },
        { value: "other", label: "Other" },
      ],
    },
    { name: "portfolio", type: "url", label: "Portfolio", required: true, when: { field: "role", equals: "designer" } },
    { name: "years", type: "number", label: "Years", min: 0, max: 60, when: { field: "role", oneOf: ["designer", "developer"] } },
    { name: "remote", type: "checkbox", label: "Remote", when: { field: "role", oneOf: ["designer", "developer"] } },
    { name: "city", type: "text", label: "City", required: true, maxLength: 20, when: { field: "remote", checked: false } },
    { name: "other", type: "text", label: "What role", required: true, maxLength: 20 },
    { name: "why", type: "textarea", label: "Why", maxLength: 30 },
    { name: "agree", type: "checkbox", label: "Agree", required: true },
  ],
  groups: [
    { fields: ["other"], when: { field: "role", equals: "other" } },
    {
      fields: ["why", "agree"],
      when: {
        any: [
          { field: "years", notEmpty: true },
          {
            all: [
              { field: "city", notEmpty: true },
              { field: "remote", checked: false },
            ],
          },
        ],
      },
    },
  ],
  destinations: [],
  allowedOrigins: [],
  successMessage: "Thanks.",
  retentionDays: 30,
};

/** Per field: kept-shape values that pass, then values that fail; null and absence come on top. */
const VALUES: Record<string, readonly [readonly unknown[], readonly unknown[]]> = {
  role: [
    ["designer", "developer", "other"],
    ["pilot", 3],
  ],
  portfolio: [["https://example.org/me"], ["ftp://example.org", "not a url", 5]],
  years: [
    [0, 7, 60],
    [61, -1, 2.5, "7", true],
  ],
  remote: [[true, false], ["yes"]],
  city: [["Lyon"], ["A city with a very long name", 12]],
  other: [["Pilot"], ["x".repeat(21), false]],
  why: [["Because."], ["y".repeat(31)]],
  agree: [[true, false], []],
};
const ABSENT = Symbol("absent");

/** Mostly passing values, so that whole payloads are often accepted and the property is tested both ways. */
const payloads = fc
  .record(
    Object.fromEntries(
      Object.entries(VALUES).map(([name, [pass, fail]]) => [
        name,
        fc.oneof(
          { weight: 8, arbitrary: fc.constantFrom(...pass) },
          ...(fail.length > 0 ? [{ weight: 1, arbitrary: fc.constantFrom(...fail) }] : []),
          { weight: 1, arbitrary: fc.constant(null) },
          { weight: 4, arbitrary: fc.constant(ABSENT) },
        ),
      ]),
    ),
  )
  .map((record) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== ABSENT)));

/** Any value a field may be given, or its removal. */
const change = fc.tuple(
  fc.constantFrom(...Object.keys(VALUES)),
  fc.constantFrom(ABSENT, null, ...Object.values(VALUES).flatMap(([pass, fail]) => [...pass, ...fail])),
);

/**
 * A generated payload; when the server accepts it, what it keeps with one field changed or removed
 * instead, so payloads near the accepted ones (one value off, one field too many or missing) are common.
 */
const cases = fc.tuple(payloads, fc.option(change, { freq: 3 })).map(([payload, edit]) => {
  const kept = validateFields(FORM, payload);
  if (!kept.ok) return payload;
  const near: Record<string, unknown> = { ...kept.values };
  if (edit) {
    const [name, value] = edit;
    if (value === ABSENT) delete near[name];
    else near[name] = value;
  }
  return near;
});

describe("conditions in schema.json agree with the server (property-based)", () => {
  const schema = formJsonSchema(FORM, "1", "https://forms.example.org");
  const ajv = new Ajv2020({ strict: true, allErrors: true }).compile(schema);
  const cfworker = new Validator(schema as never, "2020-12");

  it("is a valid definition whose schema uses if/then and dependentSchemas", () => {
    expect(checkFormDef(FORM)).toMatchObject({ ok: true });
    expect(schema.required).toEqual(["role"]);
    expect(schema.dependentSchemas).toHaveProperty("portfolio", { required: ["role"], properties: { role: { const: "designer" } } });
    expect(schema.allOf).toContainEqual({
      if: { required: ["role"], properties: { role: { const: "designer" } } },
      then: { required: ["portfolio"], properties: { portfolio: true } },
    });
  });

  it("accepts exactly what the server keeps unchanged, and whatever it keeps", () => {
    let accepted = 0;
    fc.assert(
      fc.property(cases, (payload) => {
        const server = validateFields(FORM, payload);
        const keptUnchanged = server.ok && isDeepStrictEqual(server.values, payload);
        expect(ajv(payload)).toBe(keptUnchanged);
        expect(cfworker.validate(payload).valid).toBe(keptUnchanged);
        if (server.ok) {
          expect(ajv(server.values)).toBe(true);
          expect(cfworker.validate(server.values).valid).toBe(true);
        }
        if (keptUnchanged) accepted++;
      }),
      { numRuns: 1000, seed: 55 },
    );
    // The generator reaches both answers, so agreement is not agreement on refusals alone.
    expect(accepted).toBeGreaterThan(30);
  }, 60_000);
});

function isDeepStrictEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}

function sorted(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([x], [y]) => (x < y ? -1 : 1))
      .map(([k, v]) => [k, sorted(v)]),
  );
}

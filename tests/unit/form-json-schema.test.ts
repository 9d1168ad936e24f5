import { Validator } from "@cfworker/json-schema";
import { Ajv2020 } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { checkFormDef } from "~/lib/forms/check";
import { contactForm } from "~/forms/contact";
import { newsletterForm } from "~/forms/newsletter";
import type { FormDef } from "~/forms/schema";
import { formJsonSchema } from "~/lib/forms/json-schema";
import { validateFields } from "~/lib/submit/validation";
import { EMAIL_PATTERN, WEB_PATTERN } from "~/lib/forms/value-formats";

// /f/:id/schema.json: what validation guarantees, as JSON Schema 2020-12 a receiver's validator can
// check (here @cfworker/json-schema, the one docs/webhooks.md shows, and Ajv in strict mode).

const ORIGIN = "https://forms.example.org";

const SURVEY: FormDef = {
  id: "survey",
  title: "Survey",
  description: "A few questions.",
  fields: [
    { name: "age", type: "number", label: "Age", hint: "In years.", min: 18, max: 120, required: true },
    {
      name: "colour",
      type: "select",
      label: "Colour",
      hint: "Pick one.",
      options: [
        { value: "red", label: "Red" },
        { value: "blue", label: "Blue" },
      ],
    },
    { name: "site", type: "url", label: "Site", hint: "Yours." },
    { name: "code", type: "text", label: "Code", hint: "Two letters, four digits.", pattern: "[A-Z]{2}[0-9]{4}" },
    { name: "agree", type: "checkbox", label: "I agree", hint: "Required.", required: true },
    { name: "news", type: "checkbox", label: "News", hint: "Optional." },
    { name: "cv", type: "file", label: "CV", hint: "PDF.", accept: ["application/pdf"], maxFiles: 2, maxBytes: 1000, required: true },
  ],
  destinations: [],
  allowedOrigins: [],
  successMessage: "Thanks.",
  retentionDays: 30,
};

describe("a form as JSON Schema 2020-12", () => {
  it("says the dialect, the form's id and version, and every field as required (present)", () => {
    const schema = formJsonSchema(contactForm, "code-0123456789ab", ORIGIN);
    expect(schema).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $id: "https://forms.example.org/f/contact/schema.json?version=code-0123456789ab",
      title: "Contact us",
      type: "object",
      required: ["name", "email", "message"],
      additionalProperties: false,
    });
    expect((schema.properties as Record<string, unknown>).email).toEqual({
      title: "E-mail address",
      description: "We only use it to reply to you.",
      type: "string",
      minLength: 1,
      maxLength: 254,
      pattern: EMAIL_PATTERN,
    });
  });

  it("exports types, ranges, enums, formats, anchored patterns and the agreed file shape", () => {
    const properties = formJsonSchema(SURVEY, "4", ORIGIN).properties as Record<string, Record<string, unknown>>;
    expect(properties.age).toMatchObject({ type: "number", minimum: 18, maximum: 120 });
    expect(properties.colour).toMatchObject({ type: ["string", "null"], enum: ["red", "blue", null] });
    expect(properties.site).toMatchObject({ type: ["string", "null"], pattern: WEB_PATTERN, maxLength: 2048 });
    expect(properties.site).not.toHaveProperty("format");
    expect(properties.code).toMatchObject({ pattern: "^(?:[A-Z]{2}[0-9]{4})$", maxLength: 500 });
    expect(properties.agree).toMatchObject({ type: "boolean", const: true });
    expect(properties.news).toEqual({ title: "News", description: "Optional.", type: "boolean" });
    expect(properties.cv).toEqual({
      title: "CV",
      description: "PDF.",
      type: "array",
      minItems: 1,
      maxItems: 2,
      items: {
        type: "object",
        required: ["id", "name", "type", "size", "sha256"],
        properties: {
          id: { type: "string" },
          name: { type: "string" },
          type: { enum: ["application/pdf"] },
          size: { type: "integer", minimum: 0, maximum: 1000 },
          sha256: { type: "string", pattern: "^[0-9a-f]{64}$" },
        },
      },
    });
  });

  it("accepts exactly what validation stores, and refuses what it never would", () => {
    for (const [form, input] of [
      [contactForm, { name: "Ada", email: "ada@example.org", message: "Hello from the engine." }],
      [newsletterForm, { email: "ada@example.org", consent: "on" }],
    ] as const) {
      expect(checkFormDef(form).ok).toBe(true);
      const stored = validateFields(form, input);
      if (!stored.ok) throw new Error(JSON.stringify(stored.errors));
      const validator = new Validator(formJsonSchema(form, "1", ORIGIN) as never, "2020-12");
      expect(validator.validate(stored.values).valid).toBe(true);
      expect(validator.validate({ ...stored.values, extra: "x" }).valid).toBe(false);
      expect(validator.validate({ ...stored.values, email: "not an address" }).valid).toBe(false);
      expect(validator.validate({ ...stored.values, email: null }).valid).toBe(false);
    }
    const survey = new Validator(formJsonSchema({ ...SURVEY, fields: SURVEY.fields.slice(0, 6) }, "4", ORIGIN) as never, "2020-12");
    const stored = validateFields({ ...SURVEY, fields: SURVEY.fields.slice(0, 6) }, { age: "30", code: "AB1234", agree: "on" });
    if (!stored.ok) throw new Error(JSON.stringify(stored.errors));
    expect(stored.values).toEqual({ age: 30, colour: null, site: null, code: "AB1234", agree: true, news: false });
    expect(survey.validate(stored.values).valid).toBe(true);
    expect(survey.validate({ ...stored.values, code: "xAB1234" }).valid).toBe(false);
    expect(survey.validate({ ...stored.values, age: 12 }).valid).toBe(false);
  });

  it("agrees with the server under the validator the docs show and under Ajv in strict mode", () => {
    const form: FormDef = {
      ...SURVEY,
      fields: [
        { name: "email", type: "email", label: "E-mail", hint: "Yours.", required: true },
        { name: "work", type: "email", label: "Work e-mail", hint: "At work.", pattern: "[^@]+@example\\.org" },
        { name: "site", type: "url", label: "Site", hint: "Yours." },
        { name: "age", type: "number", label: "Age", hint: "In years.", min: 18 },
        { name: "cv", type: "file", label: "CV", hint: "PDF.", accept: ["application/pdf"] },
      ],
    };
    const schema = formJsonSchema(form, "3", ORIGIN);
    // strict: unknown keywords, formats and union types refused, as a careful receiver configures Ajv.
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    const ajvCheck = ajv.compile(schema);
    const cfworker = new Validator(schema as never, "2020-12");
    const accepted = [
      { email: "zoë@example.org", work: "björn@example.org", site: "https://exämple.org/ü?q=ß", age: "40" },
      { email: "ada@example.org", work: "", site: "HTTP://localhost:8788/x", age: "" },
      { email: "用户@例子.广告", work: "a.b+c@example.org", site: "https:example.org", age: "18" },
    ];
    for (const input of accepted) {
      const stored = validateFields(form, input);
      if (!stored.ok) throw new Error(`${JSON.stringify(input)}: ${JSON.stringify(stored.errors)}`);
      const fields = { ...stored.values, cv: [] };
      expect([input.email, ajvCheck(fields), ajvCheck.errors]).toEqual([input.email, true, null]);
      expect([input.email, cfworker.validate(fields).valid]).toEqual([input.email, true]);
    }
    // What validation refuses, the schema refuses too.
    const refused = [
      { email: "zoë example.org" },
      { email: "zoë@example.org", work: "zoë@example.net" },
      { email: "a@b" },
      { email: "a@example.org", site: "ftp://example.org" },
      { email: "a@example.org", site: "https://exa mple.org" },
      { email: "a@example.org", site: "https://example.org/\u0001" },
    ];
    for (const input of refused) {
      expect(validateFields(form, input).ok, JSON.stringify(input)).toBe(false);
      const fields: Record<string, unknown> = { work: null, site: null, age: null, cv: [], ...input };
      expect([input, ajvCheck(fields)]).toEqual([input, false]);
      expect([input, cfworker.validate(fields).valid]).toEqual([input, false]);
    }
  });
});

import { describe, expect, it } from "vitest";
import type { FieldDef, FormDef } from "~/forms/schema";
import { checkFormDef } from "~/lib/forms/check";
import { validateFields } from "~/lib/submit/validation";
import { ERRORS } from "~/lib/http/errors";

// Issue #55: conditions in a definition are checked with clear messages, and the server decides with
// them: a field whose condition does not hold is neither required nor kept, and a value sent for it is dropped.

const ROLE: FieldDef = {
  name: "role",
  type: "select",
  label: "Role",
  required: true,
  options: [
    { value: "designer", label: "Designer" },
    { value: "developer", label: "Developer" },
  ],
};
const form = (fields: FieldDef[], extra: Partial<FormDef> = {}): FormDef => ({
  id: "jobs",
  title: "Jobs",
  description: "Apply.",
  fields,
  destinations: [],
  allowedOrigins: [],
  successMessage: "Thanks.",
  retentionDays: 30,
  ...extra,
});
const PORTFOLIO: FieldDef = {
  name: "portfolio",
  type: "url",
  label: "Portfolio link",
  required: true,
  when: { field: "role", equals: "designer" },
};

describe("conditions in a definition", () => {
  it("takes conditions on earlier fields, groups and steps", () => {
    const check = checkFormDef(
      form([ROLE, PORTFOLIO, { name: "agree", type: "checkbox", label: "Agree" }, { name: "note", type: "text", label: "Note" }], {
        groups: [
          {
            fields: ["note"],
            when: {
              all: [
                { field: "agree", checked: true },
                { field: "portfolio", notEmpty: true },
              ],
            },
          },
        ],
        steps: [
          { title: "You", fields: ["role", "portfolio"] },
          { title: "More", fields: ["agree", "note"] },
        ],
      }),
    );
    expect(check).toMatchObject({ ok: true });
  });

  it("refuses a condition on a later field, on the field itself (a cycle) or on no field, naming the field", () => {
    const later = checkFormDef(form([{ ...PORTFOLIO, when: { field: "role", equals: "designer" } }, ROLE]));
    expect(later).toEqual({
      ok: false,
      problems: [
        `jobs.portfolio: its condition reads "role", which comes after it (form_condition_order). ${ERRORS.form_condition_order.message}`,
      ],
    });
    const cycle = checkFormDef(
      form([ROLE, PORTFOLIO], { groups: [{ fields: ["portfolio"], when: { field: "portfolio", notEmpty: true } }] }),
    );
    expect(cycle).toMatchObject({
      ok: false,
      problems: [`jobs.portfolio: its condition reads the field itself (form_condition_order). ${ERRORS.form_condition_order.message}`],
    });
    const missing = checkFormDef(form([ROLE, { ...PORTFOLIO, when: { field: "rol", equals: "designer" } }]));
    expect(missing).toMatchObject({ ok: false, problems: ['jobs.portfolio: its condition reads "rol", which is not a field of the form'] });
  });

  it("refuses a test that could never hold: a value not among the options, checked on text, a number on text", () => {
    const check = checkFormDef(
      form([
        ROLE,
        { name: "a", type: "text", label: "A", when: { field: "role", oneOf: ["designer", "pilot"] } },
        { name: "b", type: "text", label: "B", when: { field: "a", checked: true } },
        { name: "c", type: "text", label: "C", when: { field: "a", equals: 3 } },
      ]),
    );
    expect(check).toMatchObject({
      ok: false,
      problems: [
        'jobs.a: its condition on "role" names "pilot", not an option of "role"',
        'jobs.b: its condition on "a" uses "checked", which is for checkboxes',
        'jobs.c: its condition on "a" compares with a number; "a" keeps a string',
      ],
    });
  });

  it("refuses steps that leave out a field, repeat one or break the order", () => {
    const fields = [ROLE, PORTFOLIO, { name: "note", type: "text", label: "Note" } as FieldDef];
    expect(checkFormDef(form(fields, { steps: [{ title: "One", fields: ["role", "portfolio"] }] }))).toMatchObject({
      ok: false,
      problems: ['jobs: steps leave out "note"; every field belongs to one step'],
    });
    expect(
      checkFormDef(
        form(fields, {
          steps: [
            { title: "One", fields: ["role", "note"] },
            { title: "Two", fields: ["portfolio", "role"] },
          ],
        }),
      ),
    ).toMatchObject({
      ok: false,
      problems: [
        'jobs: steps[1] ("Two") lists "portfolio" out of order: steps keep the fields\' order',
        'jobs: steps[1] ("Two") lists "role", which is already in a step',
      ],
    });
  });
});

describe("the server decides", () => {
  const jobs = form([
    ROLE,
    PORTFOLIO,
    { name: "years", type: "number", label: "Years", when: { field: "role", oneOf: ["designer", "developer"] } },
  ]);

  it("requires a field whose condition holds, naming it as today", () => {
    expect(validateFields(jobs, { role: "designer", portfolio: "" })).toMatchObject({
      ok: false,
      errors: { portfolio: "Portfolio link is required." },
    });
  });

  it("neither requires nor keeps a field whose condition does not hold, and drops a value sent for it", () => {
    const result = validateFields(jobs, { role: "developer", portfolio: "https://example.org/mine", years: "4" });
    expect(result).toEqual({ ok: true, values: { role: "developer", years: 4 }, files: [] });
    expect(validateFields(jobs, { role: "developer", portfolio: "not even a url" })).toMatchObject({
      ok: true,
      values: { role: "developer", years: null },
    });
  });

  it("reads only kept values: an invalid answer asks nothing that depends on it", () => {
    const result = validateFields(jobs, { role: "pilot", portfolio: "" });
    expect(result).toMatchObject({ ok: false, errors: { role: expect.any(String) } });
    expect(result.ok ? {} : result.errors).not.toHaveProperty("portfolio");
  });
});

import type { Condition, FormDef } from "~/forms/schema";
import { conditionOf } from "~/lib/conditions/evaluate";

// Conditions in JSON Schema 2020-12, for /f/:id/schema.json (app/lib/forms/json-schema.ts). A field asked
// under a condition is not in the top-level `required`: `if` the condition holds `then` it is required,
// and `dependentSchemas` says that when it is present its condition holds (a field not asked is never
// kept). A leaf holds only on a present property, as the server's evaluation (evaluate.ts) has it.

type JsonSchema = Record<string, unknown>;

/** The keywords a form's conditions add to its schema: none for a form without any. */
export function conditionKeywords(form: FormDef): JsonSchema {
  const rules = form.fields.flatMap((field) => {
    const condition = conditionOf(form, field);
    return condition ? [{ name: field.name, schema: conditionSchema(form, condition) }] : [];
  });
  if (rules.length === 0) return {};
  return {
    // `properties` beside `required` (always true here) keeps Ajv's strict mode (strictRequired) content.
    allOf: rules.map((rule) => ({ if: rule.schema, then: { required: [rule.name], properties: { [rule.name]: true } } })),
    dependentSchemas: Object.fromEntries(rules.map((rule) => [rule.name, rule.schema])),
  };
}

/** The names of the fields asked always, for the top-level `required`. */
export function alwaysAsked(form: FormDef): string[] {
  return form.fields.filter((field) => conditionOf(form, field) === null).map((field) => field.name);
}

function conditionSchema(form: FormDef, condition: Condition): JsonSchema {
  if ("all" in condition) return { allOf: condition.all.map((part) => conditionSchema(form, part)) };
  if ("any" in condition) return { anyOf: condition.any.map((part) => conditionSchema(form, part)) };
  const type = form.fields.find((field) => field.name === condition.field)?.type;
  const value: JsonSchema =
    "equals" in condition
      ? { const: condition.equals }
      : "oneOf" in condition
        ? { enum: [...condition.oneOf] }
        : "checked" in condition
          ? { const: condition.checked }
          : type === "file"
            ? { type: "array", minItems: 1 }
            : type === "checkbox"
              ? { const: true }
              : { not: { type: "null" } };
  return { required: [condition.field], properties: { [condition.field]: value } };
}

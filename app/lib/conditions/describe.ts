import type { Condition, FieldDef, FormDef } from "~/forms/schema";
import { conditionOf } from "~/lib/conditions/evaluate";

// Conditions and steps in words, for the console (a submission's page, the editor): "Role is Design",
// by the labels the owner gave fields and options. Plain text: React escapes it where it shows.

type Described = Pick<FormDef, "fields" | "groups" | "steps">;

/** How one field of a stored submission was asked: its step, and whether and why. */
export interface FieldAsking {
  /** "Step 1, About you", or null for a form without steps. */
  step: string | null;
  /** The condition in words, or null when the field is always asked. */
  when: string | null;
}

/** `condition` in words ("Role is Design and Newsletter is ticked"). Never throws. */
export function describeCondition(form: Pick<FormDef, "fields">, condition: Condition): string {
  if ("all" in condition || "any" in condition) {
    const parts = "all" in condition ? condition.all : condition.any;
    const joined = parts.map((part) =>
      parts.length > 1 && ("all" in part || "any" in part) ? `(${describeCondition(form, part)})` : describeCondition(form, part),
    );
    return joined.join("all" in condition ? " and " : " or ");
  }
  const field = form.fields.find((candidate) => candidate.name === condition.field);
  const label = field?.label ?? condition.field;
  if ("equals" in condition) return `${label} is ${shown(field, condition.equals)}`;
  if ("oneOf" in condition) return `${label} is ${condition.oneOf.map((value) => shown(field, value)).join(" or ")}`;
  if ("checked" in condition) return `${label} is ${condition.checked ? "ticked" : "not ticked"}`;
  return `${label} is answered`;
}

/** A compared value as the person saw it: a choice by its label. */
function shown(field: FieldDef | undefined, value: string | number): string {
  return field?.options?.find((option) => option.value === value)?.label ?? String(value);
}

/** Each field's step and condition in words, by name. */
export function describeAsking(form: Described): Record<string, FieldAsking> {
  const steps = new Map((form.steps ?? []).flatMap((step, index) => step.fields.map((name) => [name, `Step ${index + 1}, ${step.title}`])));
  return Object.fromEntries(
    form.fields.map((field) => {
      const condition = conditionOf(form, field);
      return [field.name, { step: steps.get(field.name) ?? null, when: condition ? describeCondition(form, condition) : null }];
    }),
  );
}

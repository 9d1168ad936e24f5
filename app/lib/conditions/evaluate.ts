import type { Condition, FieldDef, FormDef } from "~/forms/schema";

// The one evaluation of conditions, client-safe: the server decides with it what is required and kept
// (app/lib/submit/validation.ts), and the page shows and hides fields with the same code. A leaf holds
// only while its field is asked and kept, so a value under a field that was not asked counts for nothing.

/** What a condition reads: the kept value of each field asked so far (a file field: its files). */
export type KeptValues = Readonly<Record<string, unknown>>;

/** Whether `condition` holds on `values`. Never throws; linear in the condition's size. */
export function conditionHolds(condition: Condition, values: KeptValues): boolean {
  if ("all" in condition) return condition.all.every((part) => conditionHolds(part, values));
  if ("any" in condition) return condition.any.some((part) => conditionHolds(part, values));
  if (!Object.hasOwn(values, condition.field)) return false;
  const value = values[condition.field];
  if ("equals" in condition) return value === condition.equals;
  if ("oneOf" in condition) return condition.oneOf.includes(value as string | number);
  if ("checked" in condition) return value === condition.checked;
  return isAnswered(value);
}

/** An answer, as `notEmpty` means it: text or a number, a ticked box, at least one file. */
export function isAnswered(value: unknown): boolean {
  // Blank text is kept as null, so a length of 0 is an empty list of files; a number has no length.
  return value !== null && value !== undefined && value !== false && (value as { length?: number }).length !== 0;
}

/** The condition a field is asked under: its own `when` and its groups', all of them; null when always asked. */
export function conditionOf(form: Pick<FormDef, "groups">, field: FieldDef): Condition | null {
  const parts = [
    ...(form.groups ?? []).filter((group) => group.fields.includes(field.name)).map((group) => group.when),
    ...(field.when ? [field.when] : []),
  ];
  return parts.length === 0 ? null : parts.length === 1 ? parts[0]! : { all: parts };
}

/** The fields a condition reads, each once, in the order they appear. */
export function fieldsReadBy(condition: Condition): string[] {
  const names = new Set<string>();
  const visit = (part: Condition): void => {
    if ("all" in part) part.all.forEach(visit);
    else if ("any" in part) part.any.forEach(visit);
    else names.add(part.field);
  };
  visit(condition);
  return [...names];
}

/** The fields with each one's whole condition as its `when` (its groups' too): what a page needs, without groups. */
export function withConditions(form: Pick<FormDef, "fields" | "groups">): FieldDef[] {
  return form.fields.map((field) => {
    const { when: _own, ...rest } = field;
    const condition = conditionOf(form, field);
    return condition ? { ...rest, when: condition } : rest;
  });
}

/**
 * The names of the fields asked, given what was typed: each field in order (its whole condition as its
 * `when`, see withConditions), a later one reading only the kept values of earlier ones. `valueOf`
 * gives a field's kept value (undefined: none, e.g. invalid).
 */
export function askedFields(fields: readonly FieldDef[], valueOf: (field: FieldDef) => unknown): Set<string> {
  const kept: Record<string, unknown> = {};
  const asked = new Set<string>();
  for (const field of fields) {
    if (field.when && !conditionHolds(field.when, kept)) continue;
    asked.add(field.name);
    const value = valueOf(field);
    if (value !== undefined) kept[field.name] = value;
  }
  return asked;
}

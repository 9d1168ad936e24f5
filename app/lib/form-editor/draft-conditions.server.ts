import type { Condition, FieldDef, FormStep } from "~/forms/schema";

// The editor's condition rows and step titles read into the definition (condition-settings.tsx).
// Nothing here throws: a value typed for a number field that is no number stays text, and the
// definition check names it, as it names a test on a later field.

const ROWS = 3;

/** The condition of field `index` as typed; undefined when no row names a field. */
export function conditionTyped(params: URLSearchParams, index: number, fields: readonly FieldDef[]): Condition | undefined {
  const p = `fields.${index}.`;
  const kept = params.get(`${p}whenJson`);
  if (kept) {
    try {
      return JSON.parse(kept) as Condition;
    } catch {
      return undefined;
    }
  }
  const leaves: Condition[] = [];
  for (let k = 0; k < ROWS; k++) {
    const field = (params.get(`${p}when.${k}.field`) ?? "").trim();
    if (!field) continue;
    const test = params.get(`${p}when.${k}.test`) ?? "equals";
    const typed = (params.get(`${p}when.${k}.value`) ?? "").trim();
    const asType = (text: string) =>
      fields.find((f) => f.name === field)?.type === "number" && text !== "" && Number.isFinite(Number(text)) ? Number(text) : text;
    if (test === "notEmpty") leaves.push({ field, notEmpty: true });
    else if (test === "checked" || test === "unchecked") leaves.push({ field, checked: test === "checked" });
    else if (test === "oneOf")
      leaves.push({
        field,
        oneOf: typed
          .split("|")
          .map((v) => asType(v.trim()))
          .filter((v) => v !== ""),
      });
    else leaves.push({ field, equals: asType(typed) });
  }
  if (leaves.length <= 1) return leaves[0];
  return params.get(`${p}match`) === "any" ? { any: leaves } : { all: leaves };
}

/** Steps from the fields that start one; undefined when none does. Fields before the first titled one make an untitled step, which the check names. */
export function stepsTyped(params: URLSearchParams, fields: readonly FieldDef[]): FormStep[] | undefined {
  const steps: { title: string; fields: string[] }[] = [];
  fields.forEach((field, index) => {
    const title = (params.get(`fields.${index}.step`) ?? "").trim();
    if (title || steps.length === 0) steps.push({ title, fields: [] });
    steps[steps.length - 1]!.fields.push(field.name);
  });
  return steps.some((step) => step.title) ? steps : undefined;
}

import { z, type ZodType } from "zod";
import type { Condition, FieldDef, FormDef } from "~/forms/schema";
import { conditionOf, fieldsReadBy } from "~/lib/conditions/evaluate";
import { ERRORS } from "~/lib/http/errors";

// The check of conditions, groups and steps in a definition, from a file or the console alike
// (app/lib/forms/check.ts runs it): the shape, bounded as every part of a definition is, then the rules
// that span fields. A condition reads earlier fields only, so answers decide in one pass, in order, and
// no cycle can form; a rule refused names the field and says what to do instead.

/** How deep all/any may nest, and how many leaves one field's condition may have. */
export const MAX_CONDITION_DEPTH = 4;
export const MAX_CONDITION_LEAVES = 20;
const MAX_STEPS = 20;

const value = z.union([z.string().max(200), z.number().finite()]);
/** A condition's shape: one of the leaves, or all/any of at most MAX_CONDITION_LEAVES parts. */
export const ConditionSchema: ZodType<Condition> = z.lazy(() =>
  z.union([
    z.strictObject({ field: z.string().max(40), equals: value }),
    z.strictObject({ field: z.string().max(40), oneOf: z.array(value).min(1).max(200) }),
    z.strictObject({ field: z.string().max(40), notEmpty: z.literal(true) }),
    z.strictObject({ field: z.string().max(40), checked: z.boolean() }),
    z.strictObject({ all: z.array(ConditionSchema).min(1).max(MAX_CONDITION_LEAVES) }),
    z.strictObject({ any: z.array(ConditionSchema).min(1).max(MAX_CONDITION_LEAVES) }),
  ]),
) as ZodType<Condition>;

export const GroupSchema = z.strictObject({
  fields: z.array(z.string().max(40)).min(1).max(50),
  when: ConditionSchema,
});

/** Steps: their titles are bounded by the caller's `line` (one line of plain text). */
export const stepsSchema = (title: ZodType<string>) =>
  z
    .array(z.strictObject({ title, fields: z.array(z.string().max(40)).min(1).max(50) }))
    .min(1)
    .max(MAX_STEPS);

/** The rules across fields for conditions, groups and steps; each problem names where. Never throws. */
export function conditionProblems(form: FormDef): string[] {
  const problems: string[] = [];
  const position = new Map(form.fields.map((field, index) => [field.name, index]));
  for (const [index, group] of (form.groups ?? []).entries()) {
    for (const name of group.fields) {
      if (!position.has(name)) problems.push(`${form.id}: groups[${index}] lists "${name}", which is not a field of the form`);
    }
  }
  for (const field of form.fields) {
    const condition = conditionOf(form, field);
    if (condition) problems.push(...leafProblems(form, field, condition, position));
  }
  return [...new Set(problems), ...stepProblems(form, position)];
}

function leafProblems(form: FormDef, field: FieldDef, condition: Condition, position: Map<string, number>): string[] {
  const where = `${form.id}.${field.name}`;
  if (depthOf(condition) > MAX_CONDITION_DEPTH) return [`${where}: its condition nests all/any deeper than ${MAX_CONDITION_DEPTH}`];
  if (leavesOf(condition).length > MAX_CONDITION_LEAVES) return [`${where}: its condition has more than ${MAX_CONDITION_LEAVES} parts`];
  const problems: string[] = [];
  const own = position.get(field.name)!;
  for (const name of fieldsReadBy(condition)) {
    const at = position.get(name);
    if (at === undefined) problems.push(`${where}: its condition reads "${name}", which is not a field of the form`);
    else if (at >= own) {
      const read = at === own ? "the field itself" : `"${name}", which comes after it`;
      problems.push(`${where}: its condition reads ${read} (form_condition_order). ${ERRORS.form_condition_order.message}`);
    }
  }
  for (const leaf of leavesOf(condition)) {
    const target = form.fields.find((candidate) => candidate.name === leaf.field);
    if (target) problems.push(...kindProblems(where, target, leaf));
  }
  return problems;
}

type Leaf = Exclude<Condition, { all: unknown } | { any: unknown }>;

function leavesOf(condition: Condition): Leaf[] {
  if ("all" in condition) return condition.all.flatMap(leavesOf);
  if ("any" in condition) return condition.any.flatMap(leavesOf);
  return [condition];
}

function depthOf(condition: Condition): number {
  if ("all" in condition) return 1 + Math.max(...condition.all.map(depthOf));
  if ("any" in condition) return 1 + Math.max(...condition.any.map(depthOf));
  return 0;
}

/** A leaf must be able to hold: the test suits the field's type, and a select's value is one of its options. */
function kindProblems(where: string, target: FieldDef, leaf: Leaf): string[] {
  const about = `its condition on "${target.name}"`;
  if ("checked" in leaf) return target.type === "checkbox" ? [] : [`${where}: ${about} uses "checked", which is for checkboxes`];
  if ("notEmpty" in leaf) return target.type === "hidden" ? [`${where}: ${about} reads a hidden field, which a person never fills in`] : [];
  if (target.type === "checkbox" || target.type === "file" || target.type === "hidden") {
    return [
      `${where}: ${about} compares values; for a ${target.type} field use ${target.type === "checkbox" ? '"checked"' : '"notEmpty"'}`,
    ];
  }
  const compared = "equals" in leaf ? [leaf.equals] : leaf.oneOf;
  const wanted = target.type === "number" ? "number" : "string";
  if (compared.some((v) => typeof v !== wanted))
    return [`${where}: ${about} compares with a ${wanted === "number" ? "text" : "number"}; "${target.name}" keeps a ${wanted}`];
  if (target.type === "select") {
    const missing = compared.filter((v) => !target.options?.some((option) => option.value === v));
    if (missing.length > 0)
      return [`${where}: ${about} names ${missing.map((v) => JSON.stringify(v)).join(", ")}, not an option of "${target.name}"`];
  }
  return [];
}

/** Every field in exactly one step, the steps in the fields' order. */
function stepProblems(form: FormDef, position: Map<string, number>): string[] {
  if (!form.steps) return [];
  const problems: string[] = [];
  const seen = new Set<string>();
  let last = -1;
  for (const [index, step] of form.steps.entries()) {
    const where = `${form.id}: steps[${index}] ("${step.title}")`;
    if (!step.title.trim()) problems.push(`${form.id}: steps[${index}] needs a title`);
    for (const name of step.fields) {
      const at = position.get(name);
      if (at === undefined) problems.push(`${where} lists "${name}", which is not a field of the form`);
      else if (seen.has(name)) problems.push(`${where} lists "${name}", which is already in a step`);
      else if (at < last) problems.push(`${where} lists "${name}" out of order: steps keep the fields' order`);
      else last = at;
      seen.add(name);
    }
  }
  const left = form.fields.filter((field) => !seen.has(field.name)).map((field) => `"${field.name}"`);
  if (left.length > 0) problems.push(`${form.id}: steps leave out ${left.join(", ")}; every field belongs to one step`);
  return problems;
}

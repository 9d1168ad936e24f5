import { z } from "zod";
import type { FormDef, SpamRule } from "~/forms/schema";

// The `spam` property of a form definition (docs/forms.md#spam): its shape and bounds, checked with the
// rest of the definition (app/lib/forms/check.ts), and the rules that name the form's own fields.
// Client-safe: the console's editor shows the same problems.

/** The learning filter's threshold when a form names none. */
export const DEFAULT_SPAM_THRESHOLD = 0.9;
export const MAX_SPAM_RULES = 20;
const MAX_ENTRIES = 200;

const entry = z
  .string()
  .min(1)
  .max(200)
  .refine((s) => !/[\p{Cc}\u202A-\u202E\u2066-\u2069]/u.test(s), "must be one line of plain text");
const action = z.enum(["quarantine", "refuse"], { error: 'must be "quarantine" or "refuse"' });
const fieldName = z.string().max(40);
const scriptName = z
  .string()
  .regex(/^[A-Z][A-Za-z_]{1,40}$/, "must be a Unicode script name such as Latin or Cyrillic")
  .refine(isScript, "is not a Unicode script name (Latin, Cyrillic, Greek, Han, Arabic…)");

const SpamRuleSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("phrases"), action, phrases: z.array(entry).min(1).max(MAX_ENTRIES) }),
  z.strictObject({ kind: z.literal("senders"), action, senders: z.array(entry).min(1).max(MAX_ENTRIES) }),
  z.strictObject({ kind: z.literal("disposable"), action }),
  z.strictObject({ kind: z.literal("links"), action, max: z.number().int().min(0).max(100) }),
  z.strictObject({ kind: z.literal("scripts"), action, field: fieldName, scripts: z.array(scriptName).min(1).max(20) }),
  z.strictObject({ kind: z.literal("repeat"), action, field: fieldName, of: fieldName }),
]);

export const SpamSettingsSchema = z.strictObject({
  rules: z.array(SpamRuleSchema).max(MAX_SPAM_RULES).optional(),
  threshold: z.number().gt(0).lt(1).optional(),
  filter: z.boolean().optional(),
});

/** Whether `name` is a script the engine's \p{Script=…} knows. */
export function isScript(name: string): boolean {
  try {
    new RegExp(`\\p{Script=${name}}`, "u");
    return true;
  } catch {
    return false;
  }
}

/** The problems of a form's spam rules that span its fields: a rule must name fields the form has. */
export function spamRuleProblems(form: Pick<FormDef, "id" | "fields" | "spam">): string[] {
  const names = new Set(form.fields.map((field) => field.name));
  const problems: string[] = [];
  (form.spam?.rules ?? []).forEach((rule: SpamRule, index) => {
    const where = `${form.id}: spam.rules[${index}] (${rule.kind})`;
    const named = rule.kind === "scripts" ? [rule.field] : rule.kind === "repeat" ? [rule.field, rule.of] : [];
    for (const name of named) if (!names.has(name)) problems.push(`${where} names field "${name}", which the form does not have`);
    if (rule.kind === "repeat" && rule.field === rule.of) problems.push(`${where} compares a field with itself`);
    if (rule.kind === "senders" && rule.senders.some((s) => !/^[^\s@]*@?[^\s@]+\.[^\s@]+$/.test(s.trim()))) {
      problems.push(`${where}: each sender is a domain (example.com) or an address (name@example.com)`);
    }
    if (rule.kind === "disposable" && !form.fields.some((field) => field.type === "email")) {
      problems.push(`${where}: the form has no e-mail field to check`);
    }
  });
  return problems;
}

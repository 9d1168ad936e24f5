import type { FieldDef, FormDef } from "~/forms/schema";

// What changed between two definitions, in short sentences for the audit log ("field email: label
// changed", "retentionDays 90 → 30"). Texts are named, never quoted: a definition is not personal data,
// but the log stays short and readable. At most MAX_CHANGES lines, the last one saying how many more.

const MAX_CHANGES = 30;

const FORM_KEYS = [
  "title",
  "description",
  "successMessage",
  "redirectUrl",
  "allowedOrigins",
  "retentionDays",
  "rateLimit",
  "public",
  "maxUploadBytes",
  "destinations",
] as const;
const NUMBER_KEYS = new Set(["retentionDays", "maxUploadBytes"]);

/** The differences from `before` (null: a new form) to `after`. Empty when they are the same. */
export function describeChanges(before: FormDef | null, after: FormDef): string[] {
  if (!before) return [`created with ${after.fields.length} field${after.fields.length === 1 ? "" : "s"}`];
  const changes: string[] = [];
  for (const key of FORM_KEYS) {
    const [a, b] = [before[key], after[key]];
    if (same(a, b)) continue;
    changes.push(NUMBER_KEYS.has(key) ? `${key} ${a ?? "default"} → ${b ?? "default"}` : `${key} changed`);
  }
  const names = (form: FormDef) => form.fields.map((f) => f.name);
  const beforeByName = new Map(before.fields.map((f) => [f.name, f]));
  const afterNames = new Set(names(after));
  for (const field of before.fields) if (!afterNames.has(field.name)) changes.push(`field ${field.name} removed`);
  for (const field of after.fields) {
    const old = beforeByName.get(field.name);
    if (!old) changes.push(`field ${field.name} added (${field.type})`);
    else changes.push(...fieldChanges(old, field));
  }
  const kept = (form: FormDef) => names(form).filter((name) => beforeByName.has(name) && afterNames.has(name));
  if (!same(kept(before), kept(after))) changes.push("fields reordered");
  return changes.length > MAX_CHANGES ? [...changes.slice(0, MAX_CHANGES - 1), `and ${changes.length - MAX_CHANGES + 1} more`] : changes;
}

function fieldChanges(before: FieldDef, after: FieldDef): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)] as (keyof FieldDef)[]);
  const changed = [...keys].filter((key) => !same(before[key], after[key]));
  return changed.length > 0 ? [`field ${after.name}: ${changed.join(", ")} changed`] : [];
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

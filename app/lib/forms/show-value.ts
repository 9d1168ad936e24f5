import type { FieldDef, FieldValue } from "~/forms/schema";
import { orEmptyMark } from "~/lib/text/empty-value";

// A stored value as the console shows it: a choice by its label, a checkbox as Yes or No, files by name. Client-safe.

/** `value` of `field` (undefined: a field the form no longer has) as one line of text. Pure. */
export function showFieldValue(field: FieldDef | undefined, value: FieldValue | undefined): string {
  if (value === null || value === undefined) return orEmptyMark(null);
  if (Array.isArray(value)) return orEmptyMark(value.map((file) => file.name).join(", "));
  if (typeof value === "boolean" || field?.type === "checkbox") return value === true || value === "true" ? "Yes" : "No";
  const option = field?.options?.find((o) => o.value === value);
  return option ? option.label : orEmptyMark(String(value));
}

import { DEFAULT_CAP, type FieldDef } from "~/forms/schema";

// Prefill (docs/forms.md#prefill): a field that declares it takes its first value from the page's
// address. The value only starts the field off; the post is validated like anything typed, so a
// value here is trimmed to the field's length and dropped where it could never be valid.

/** Query names the form's page reads itself (the language and the frame), so no field takes them. */
export const RESERVED_QUERY_NAMES = ["lang", "embed", "parent"] as const;

/** The query parameter a field fills from, or null when it does not prefill. */
export function prefillName(field: Pick<FieldDef, "name" | "prefill">): string | null {
  if (field.prefill === undefined || field.prefill === false) return null;
  return field.prefill === true ? field.name : field.prefill;
}

/** The definition's prefill problems: files cannot start filled, and the page's own names are taken. */
export function prefillProblems(where: string, field: FieldDef): string[] {
  const name = prefillName(field);
  if (name === null) return [];
  if (field.type === "file") return [`${where}: a file field cannot take a value from the address (prefill)`];
  if ((RESERVED_QUERY_NAMES as readonly string[]).includes(name))
    return [`${where}: prefill names ?${name}=, which the form's page reads itself (${RESERVED_QUERY_NAMES.join(", ")})`];
  return [];
}

/** The starting values the address gives: one per prefilling field, read by name (never by scanning the query). */
export function prefilledValues(fields: readonly FieldDef[], query: URLSearchParams): Record<string, string> {
  const values: Record<string, string> = {};
  for (const field of fields) {
    const name = prefillName(field);
    const raw = name === null ? null : query.get(name);
    if (raw === null || raw === "") continue;
    const value = startingValue(field, raw);
    if (value !== null) values[field.name] = value;
  }
  return values;
}

function startingValue(field: FieldDef, raw: string): string | null {
  if (field.type === "checkbox") return ["1", "true", "on", "yes"].includes(raw.toLowerCase()) ? "true" : null;
  if (field.type === "select") return field.options?.some((option) => option.value === raw) ? raw : null;
  return raw.slice(0, field.maxLength ?? DEFAULT_CAP[field.type]);
}

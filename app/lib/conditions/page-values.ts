import type { FieldDef, FormDef } from "~/forms/schema";
import { askedFields } from "~/lib/conditions/evaluate";

// What the page's conditions read: a field's text as the server would keep it, near enough to show and
// hide fields as the person answers. The server's validation (app/lib/submit/validation.ts) decides;
// this only guesses what it will keep, so a malformed answer counts as the text it is.

/** A field's typed text (a file field: how many files are chosen) as a kept value; undefined: none. */
export function keptFromText(field: FieldDef, text: string | number): unknown {
  if (typeof text === "number") return Array.from({ length: text });
  const trimmed = field.type === "textarea" ? text : text.trim();
  switch (field.type) {
    case "checkbox":
      return ["on", "true", "1", "yes"].includes(trimmed.toLowerCase());
    case "number":
      return trimmed === "" ? null : /^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : undefined;
    default:
      return trimmed.trim() === "" ? null : trimmed;
  }
}

/** The fields asked, given the form's current entries (a file field's: the count of its files). */
export function askedOnPage(form: Pick<FormDef, "fields" | "groups">, entries: (name: string) => string | number): Set<string> {
  return askedFields(form, (field) => keptFromText(field, entries(field.name)));
}

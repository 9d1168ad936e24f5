import type { FieldDef, FormDef } from "~/forms/schema";
import { askedFields, withConditions } from "~/lib/conditions/evaluate";

// What a page's conditions read, as near as the page can tell what the server would keep
// (app/lib/submit/validation.ts decides): a malformed answer counts as the text it is. The page reads
// its controls; a page rendered on the server starts from the answers it echoes.

const NUMBER = /^-?\d+(\.\d+)?$/;

/** Text as the server keeps it for a field that is not a checkbox or a file; undefined: no value. */
function keptFromText(field: FieldDef, text: string): unknown {
  const kept = field.type === "textarea" ? text : text.trim();
  if (kept.trim() === "") return null;
  return field.type !== "number" ? kept : NUMBER.test(kept) ? Number(kept) : undefined;
}

/** The fields asked on answers echoed as text (a page re-rendered after a refusal, or a fresh one). */
export function askedOnEcho(form: Pick<FormDef, "fields" | "groups">, values: Readonly<Record<string, string>>): string[] {
  const asked = askedFields(withConditions(form), (field) => {
    const text = values[field.name] ?? "";
    if (field.type === "checkbox") return ["on", "true", "1", "yes"].includes(text.trim().toLowerCase());
    return field.type === "file" ? [] : keptFromText(field, text);
  });
  return [...asked];
}

/**
 * The fields asked on the answers in the controls under `element` now (a file field: its files); each
 * field's `when` is whole. Text counts trimmed and a number as Number reads it: near enough to show
 * and hide fields, since the server refuses what it cannot read.
 */
export function askedInPage(fields: readonly FieldDef[], element: Element): Set<string> {
  return askedFields(fields, (field) => {
    const control = element.querySelector<HTMLInputElement>(`[name="${field.name}"]`);
    if (!control) return undefined;
    if (control.type === "checkbox") return control.checked;
    const text = control.value.trim();
    return control.type === "file" ? [...control.files!] : text === "" ? null : field.type === "number" ? Number(text) : text;
  });
}

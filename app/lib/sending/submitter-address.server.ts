import type { FieldDef, FormDef } from "~/forms/schema";
import { isEmailAddress } from "~/lib/destinations/checks";

// The sender's own address: the owner's e-mail replies to it and the confirmation goes to it.

/** The field a confirmation goes to: the form's first e-mail field. */
export function confirmationField(form: FormDef): FieldDef | undefined {
  return form.fields.find((field) => field.type === "email");
}

/** The submitter's address from the form's first e-mail field, when it is a valid one; else null. */
export function submitterAddress(form: FormDef, fields: Readonly<Record<string, unknown>>): string | null {
  const field = confirmationField(form);
  const value = field ? fields[field.name] : null;
  return typeof value === "string" && isEmailAddress(value.trim()) ? value.trim() : null;
}

import type { FormDef } from "~/forms/schema";
import { checkForms, collectForms } from "~/forms/check";
import { FORM_MODULES } from "~/forms/modules";

// Every form Gatepost serves: each export of each form file that is a form definition, ordered by
// id. Nothing to edit here when a form is added. checkForms throws at import time, so a broken
// definition fails the tests and the build's first request instead of a visitor.
export const FORMS: readonly FormDef[] = checkForms(collectForms(FORM_MODULES));

export function findForm(id: string | undefined): FormDef | undefined {
  return FORMS.find((form) => form.id === id);
}

export function publicForms(): FormDef[] {
  return FORMS.filter((form) => form.public);
}

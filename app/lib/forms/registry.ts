import type { FormDef } from "~/forms/schema";
import { checkForms, collectForms } from "~/lib/forms/check";
import { FORM_MODULES } from "~/forms/modules";

// Every form file's forms, ordered by id; console forms join them in catalog.server.ts. checkForms throws at
// import time, so a broken definition fails the tests and the build, not a visitor.
export const FORMS: readonly FormDef[] = checkForms(collectForms(FORM_MODULES));

/** A form file's definition by id; serving code uses findForm (live.server.ts), which knows console forms too. */
export function findCodeForm(id: string | undefined): FormDef | undefined {
  return FORMS.find((form) => form.id === id);
}

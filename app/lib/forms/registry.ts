import type { FormDef } from "~/forms/schema";
import { checkForms, collectForms } from "~/lib/forms/check";
import { FORM_MODULES } from "~/forms/modules";

// Every form file's form: each export of each form file that is a form definition, ordered by id.
// (Forms made in the console join them in ~/lib/forms/catalog.server.ts.) Nothing to edit here when a form is added. checkForms throws at import time, so a broken
// definition fails the tests and the build's first request instead of a visitor.
export const FORMS: readonly FormDef[] = checkForms(collectForms(FORM_MODULES));

/**
 * A form file's definition by id. Serving code finds forms through ~/lib/forms/live.server (findForm),
 * which also knows the console's forms; this is for what only concerns the files.
 */
export function findCodeForm(id: string | undefined): FormDef | undefined {
  return FORMS.find((form) => form.id === id);
}

import { contactForm } from "~/forms/contact";
import { newsletterForm } from "~/forms/newsletter";
import type { FormDef } from "~/forms/schema";
import { checkForms } from "~/forms/check";

// Every form Gatepost serves. Adding a form is adding its file and one line here; checkForms throws
// at import time, so a broken definition fails the tests instead of the first visitor.
export const FORMS: readonly FormDef[] = checkForms([contactForm, newsletterForm]);

export function findForm(id: string | undefined): FormDef | undefined {
  return FORMS.find((form) => form.id === id);
}

export function publicForms(): FormDef[] {
  return FORMS.filter((form) => form.public);
}

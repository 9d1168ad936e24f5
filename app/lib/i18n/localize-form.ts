import type { FormDef } from "~/forms/schema";
import type { Lang } from "~/lib/text/languages";

// A form as shown in one language: the owner's translated texts over its own, field by field. Names,
// values, types and limits never change with the language, so validation and payloads stay the same.
// Client-safe and pure.

/** The languages a form offers, its own first. */
export function languagesOf(form: Pick<FormDef, "languages">): readonly Lang[] {
  return form.languages && form.languages.length > 0 ? form.languages : ["en"];
}

/** `form` with its texts in `lang` where the owner wrote them; the form itself for its own language. */
export function localizeForm<F extends FormDef>(form: F, lang: Lang): F {
  const t = form.translations?.[lang];
  if (!t || languagesOf(form)[0] === lang) return form;
  return {
    ...form,
    title: t.title ?? form.title,
    description: t.description ?? form.description,
    successMessage: t.successMessage ?? form.successMessage,
    fields: form.fields.map((field) => {
      const ft = t.fields?.[field.name];
      if (!ft) return field;
      return {
        ...field,
        label: ft.label ?? field.label,
        hint: ft.hint ?? field.hint,
        patternMessage: ft.patternMessage ?? field.patternMessage,
        options: field.options?.map((option) => ({ ...option, label: ft.options?.[option.value] ?? option.label })),
      };
    }),
    destinations: form.destinations.map((d) =>
      d.kind === "confirmation" && t.confirmation
        ? { ...d, subject: t.confirmation.subject ?? d.subject, text: t.confirmation.text ?? d.text }
        : d,
    ),
  };
}

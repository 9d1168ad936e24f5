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
    ...(form.steps ? { steps: form.steps.map((step, index) => ({ ...step, title: t.steps?.[index] ?? step.title })) } : {}),
    destinations: form.destinations.map((d) => localizeKindTexts(d, (t as Readonly<Record<string, unknown>>)[d.kind])),
  };
}

/** A destination's own texts (a kind's, keyed by its name in a translation) over its own; nothing else changes. */
function localizeKindTexts<D extends FormDef["destinations"][number]>(destination: D, translated: unknown): D {
  if (!translated || typeof translated !== "object") return destination;
  const own = destination as unknown as Readonly<Record<string, unknown>>;
  const texts = Object.entries(translated).filter(
    ([key, value]) => key !== "kind" && typeof own[key] === "string" && typeof value === "string",
  );
  return texts.length > 0 ? { ...destination, ...Object.fromEntries(texts) } : destination;
}

import { describe, expect, it } from "vitest";
import { FORMS } from "~/lib/forms/registry";
import { checkFormDef } from "~/lib/forms/check";
import { VISITOR_ERROR_CODES } from "~/lib/http/errors";
import { CATALOGUES, errorText, htmlRefusalWords } from "~/lib/i18n/catalogue.server";
import { chooseLanguage, LANGUAGES, preferredLanguages, textDirection, type Lang } from "~/lib/text/languages";
import { languagesOf, localizeForm } from "~/lib/i18n/localize-form";
import { fill } from "~/lib/text/fill";
import { validateFields } from "~/lib/submit/validation";
import { contactForm } from "~/forms/contact";

// Every language's catalogue says everything English says, with the same placeholders, and the plural
// forms its language needs; a form offers what it translates; a visit gets the language it asks for.

const PLURAL_CATEGORIES = new Set(["zero", "one", "two", "few", "many", "other"]);

function isPlural(value: unknown): value is Record<string, string> {
  return typeof value === "object" && value !== null && "other" in value && Object.keys(value).every((k) => PLURAL_CATEGORIES.has(k));
}

/** Every message of a catalogue by its path ("page.captcha.ready"): a string or plural forms. */
function leaves(value: unknown, path = ""): Map<string, string | Record<string, string>> {
  const found = new Map<string, string | Record<string, string>>();
  if (typeof value === "string" || isPlural(value)) return found.set(path, value);
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    for (const [p, leaf] of leaves(inner, path ? `${path}.${key}` : key)) found.set(p, leaf);
  }
  return found;
}

function placeholders(message: string | Record<string, string>): string[] {
  const texts = typeof message === "string" ? [message] : Object.values(message);
  return [...new Set(texts.flatMap((text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)))].sort();
}

const ENGLISH = leaves(CATALOGUES.en);

describe("the message catalogues", () => {
  it("ship the ten languages, English among them with every visitor-facing error", () => {
    expect(Object.keys(CATALOGUES).sort()).toEqual([...LANGUAGES].sort());
    expect(ENGLISH.size).toBeGreaterThan(80);
    for (const code of VISITOR_ERROR_CODES) expect(ENGLISH.has(`errors.${code}`), code).toBe(true);
  });

  it.each(LANGUAGES.filter((lang) => lang !== "en"))("%s has every key English has, and no other", (lang) => {
    const own = leaves(CATALOGUES[lang]);
    expect([...ENGLISH.keys()].filter((key) => !own.has(key))).toEqual([]);
    expect([...own.keys()].filter((key) => !ENGLISH.has(key))).toEqual([]);
  });

  it.each(LANGUAGES.filter((lang) => lang !== "en"))("%s fills the same placeholders as English, and says something of its own", (lang) => {
    const own = leaves(CATALOGUES[lang]);
    const wrong = [...ENGLISH].filter(([key, message]) => placeholders(own.get(key)!).join() !== placeholders(message).join());
    expect(wrong.map(([key]) => key)).toEqual([]);
    // A catalogue that copied English would pass the checks above.
    const copied = [...ENGLISH].filter(([key, message]) => typeof message === "string" && message.length > 30 && own.get(key) === message);
    expect(copied.map(([key]) => key)).toEqual([]);
  });

  it.each(LANGUAGES)("%s gives a counted message either one phrasing or every plural form its counts take", (lang) => {
    // The forms whole counts take (French and others keep "many" for millions in compact notation).
    const rules = new Intl.PluralRules(lang);
    const categories = new Set(Array.from({ length: 2001 }, (_, n) => rules.select(n)));
    for (const [key, message] of leaves(CATALOGUES[lang])) {
      if (typeof message === "string" || Object.keys(message).length === 1) continue;
      expect(
        [...categories].filter((category) => !(category in message)),
        `${lang} ${key}`,
      ).toEqual([]);
    }
  });

  it("picks the plural form by the language's rules", () => {
    const rule = CATALOGUES.pl.validation.tooLong;
    expect(fill(rule, { label: "Imię", count: 1 }, "pl")).toBe("Pole „Imię” może mieć najwyżej 1 znak.");
    expect(fill(rule, { label: "Imię", count: 3 }, "pl")).toBe("Pole „Imię” może mieć najwyżej 3 znaki.");
    expect(fill(rule, { label: "Imię", count: 100 }, "pl")).toBe("Pole „Imię” może mieć najwyżej 100 znaków.");
    expect(fill(CATALOGUES.en.validation.tooLong, { label: "Name", count: 1 })).toBe("Name must be at most 1 character.");
  });

  it("fills placeholders with text as it is, $ patterns included, and leaves unknown ones", () => {
    expect(fill("{label} is required.", { label: "Cost in $&" })).toBe("Cost in $& is required.");
    expect(fill("{label} and {other}", { label: "A" })).toBe("A and {other}");
  });

  it("translates visitors' refusals and leaves the operator's in English", () => {
    expect(errorText("form_expired", "de")).toBe(CATALOGUES.de.errors.form_expired);
    expect(errorText("admin_forbidden", "de")).toBe(errorText("admin_forbidden", "en"));
    expect(htmlRefusalWords("rate_limited", "ar", "اتصل بنا")).toMatchObject({ lang: "ar", dir: "rtl", title: "اتصل بنا: لم يُرسَل" });
  });
});

describe("choosing a visit's language", () => {
  const choose = (offered: readonly Lang[], query: string, acceptLanguage?: string) =>
    chooseLanguage(offered, new URL(`https://forms.example/f/contact${query}`).searchParams, acceptLanguage ?? null);

  it("takes ?lang= over Accept-Language, Accept-Language by weight, else the form's first", () => {
    expect(choose(LANGUAGES, "?lang=ja", "de-DE,de;q=0.9")).toBe("ja");
    expect(choose(LANGUAGES, "", "fr-CH, fr;q=0.9, en;q=0.8")).toBe("fr");
    expect(choose(LANGUAGES, "", "sv;q=1, pt-BR;q=0.5, de;q=0.7")).toBe("de");
    expect(choose(LANGUAGES, "", "sv, fi")).toBe("en");
    expect(choose(["de", "en"], "", "sv")).toBe("de");
  });

  it("offers only what the form offers, whatever is asked", () => {
    expect(choose(["en", "de"], "?lang=ja", "ar")).toBe("en");
    expect(choose(["en", "de"], "?lang=xx", "de;q=0.1")).toBe("de");
    expect(choose(["en"], "", "de;q=0")).toBe("en");
  });

  it("reads a bounded part of a huge header", () => {
    const huge = `${"xx;q=0.5,".repeat(10_000)}de`;
    expect(preferredLanguages(huge).length).toBeLessThanOrEqual(24);
    expect(choose(["en", "de"], "", huge)).toBe("en");
  });

  it("lays Arabic out right to left, the others left to right", () => {
    expect(LANGUAGES.filter((lang) => textDirection(lang) === "rtl")).toEqual(["ar"]);
  });
});

describe("forms in many languages", () => {
  const examples = FORMS.filter((form) => ["apply", "contact", "newsletter"].includes(form.id));

  it("the example forms offer every shipped language, their own English first, each text translated", () => {
    expect(examples.map((form) => form.id)).toEqual(["apply", "contact", "newsletter"]);
    for (const form of examples) {
      expect(languagesOf(form)).toEqual(LANGUAGES);
      for (const lang of LANGUAGES.slice(1)) {
        const shown = localizeForm(form, lang);
        const own = form.translations?.[lang];
        // The owner's words in that language ("Newsletter" may stay "Newsletter").
        expect([own?.title, own?.description, own?.successMessage].every(Boolean), `${form.id} ${lang}`).toBe(true);
        expect(shown.description).not.toBe(form.description);
        expect(shown.successMessage).not.toBe(form.successMessage);
        // A hidden field is never shown to a visitor: its label is for the owner (console, deliveries).
        for (const field of form.fields.filter((f) => f.type !== "hidden")) {
          const texts = own?.fields?.[field.name];
          expect(texts?.label && texts.hint, `${form.id}.${field.name} ${lang}`).toBeTruthy();
        }
        const confirmation = (f: typeof form) => f.destinations.find((d) => d.kind === "confirmation");
        if (confirmation(form)) expect(confirmation(shown)).not.toEqual(confirmation(form));
      }
    }
  });

  it("keeps names, types and limits whatever the language", () => {
    const shown = localizeForm(contactForm, "ja");
    expect(shown.fields.map(({ name, type, maxLength, required }) => ({ name, type, maxLength, required }))).toEqual(
      contactForm.fields.map(({ name, type, maxLength, required }) => ({ name, type, maxLength, required })),
    );
    expect(localizeForm(contactForm, "en")).toBe(contactForm);
  });

  it("refuses translations for languages not offered or its own, and a language twice", () => {
    const base = {
      ...contactForm,
      languages: ["en", "de"],
      translations: { en: {}, de: { fields: { phone: { label: "Telefon" } } }, fr: {} },
    };
    const check = checkFormDef(base);
    expect(check.ok).toBe(false);
    expect(!check.ok && check.problems).toEqual([
      "contact: translations.en is the form's own language: write those texts in the form itself",
      "contact: translations.fr is for a language the form does not offer",
    ]);
    const twice = checkFormDef({ ...contactForm, languages: ["en", "en"], translations: {} });
    expect(!twice.ok && twice.problems).toEqual(["contact: languages lists a language twice"]);
    const unknown = checkFormDef({ ...contactForm, languages: ["en", "xx"], translations: {} });
    expect(unknown.ok).toBe(false);
  });

  it("words field errors in the visitor's language around the labels they saw", () => {
    const lang = "de";
    const result = validateFields(localizeForm(contactForm, lang), { name: "", email: "nope", message: "kurz" }, [], {
      lang,
      page: CATALOGUES.de.page,
      validation: CATALOGUES.de.validation,
    });
    expect(result).toEqual({
      ok: false,
      values: { name: "", email: "nope", message: "kurz" },
      errors: {
        name: "Bitte füllen Sie „Ihr Name“ aus.",
        email: "„E-Mail-Adresse“ muss eine gültige E-Mail-Adresse sein, zum Beispiel name@example.com.",
        message: "„Nachricht“ muss mindestens 10 Zeichen lang sein.",
      },
    });
  });
});

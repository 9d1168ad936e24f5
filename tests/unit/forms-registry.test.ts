import { describe, expect, it } from "vitest";
import { checkForms, collectForms, suggestionsFor } from "~/lib/forms/check";
import { contactForm } from "~/forms/contact";
import { FORM_MODULES } from "~/forms/modules";
import { FORMS, findCodeForm } from "~/lib/forms/registry";
import { defineForm, type FieldDef, type FormValues } from "~/forms/schema";
import { newsletterForm } from "~/forms/newsletter";
import { validateFields } from "~/lib/submit/validation";
// @ts-expect-error - plain ESM helper shared with npm start
import { listFormFiles, loadForms } from "../../scripts/read-forms.mjs";

describe("the form registry", () => {
  it("loads every form file in app/forms/ with no list to edit, sorted by id", () => {
    const files: string[] = listFormFiles();
    expect(files.length).toBeGreaterThan(0);
    // npm start lists the same files Vite's glob finds.
    expect(Object.keys(FORM_MODULES).sort()).toEqual(files.map((file) => `./${file}`));
    expect(FORMS).toHaveLength(files.length);
    const ids = FORMS.map((f) => f.id);
    expect(ids).toEqual([...ids].sort());
    expect(findCodeForm("contact")).toBe(FORMS.find((f) => f.id === "contact"));
  });

  it("refuses a form file that exports no form, naming the file", () => {
    expect(() => collectForms({ "./notes.ts": { helper: () => 1 } })).toThrowError(/\.\/notes\.ts exports no form/);
    expect(
      collectForms({ "./b.ts": { b: { ...contactForm, id: "b" } }, "./a.ts": { a: { ...contactForm, id: "a" }, other: 1 } }).map(
        (f) => f.id,
      ),
    ).toEqual(["a", "b"]);
  });

  it("names every form's settings for npm start by the app's own convention", async () => {
    const forms: Array<{ id: string; destinations: string[]; settings: Record<string, string> }> = await loadForms();
    expect(forms.map((f) => f.id)).toEqual(FORMS.map((f) => f.id));
    for (const form of forms) expect(form.settings.WEBHOOK_URL).toBe(`${form.id.toUpperCase().replaceAll("-", "_")}_WEBHOOK_URL`);
    // esbuild bundles the forms as npm start does: seconds on a loaded machine, not a unit's 5 s.
  }, 60_000);

  it("refuses duplicate ids, bad patterns, missing labels and reserved names, naming each", () => {
    const broken = defineForm({
      ...contactForm,
      fields: [
        { name: "code", type: "text", label: "Code", pattern: "([a-z" },
        { name: "nolabel", type: "text", label: " " },
        { name: "_gotcha", type: "text", label: "Trap" },
      ],
    });
    expect(() => checkForms([contactForm, broken])).toThrowError(
      /duplicate form id "contact"[\s\S]*contact\.code: pattern "\(\[a-z" has a \[ without its \][\s\S]*contact\.nolabel: every field needs a label[\s\S]*field name is reserved/,
    );
  });

  it("takes a field without a hint, and suggests one for visible fields only", () => {
    const form = defineForm({
      ...contactForm,
      id: "hints",
      fields: [
        { name: "shown", type: "text", label: "Shown" },
        { name: "source", type: "hidden", label: "Source" },
      ],
    });
    expect(checkForms([form])).toEqual([form]);
    expect(suggestionsFor(form)).toEqual([
      "Shown: a hint (shown under the label, read out with the field) would tell people what to enter.",
    ]);
    expect(suggestionsFor(contactForm)).toEqual([]);
  });

  it("refuses a select without options and an allowed origin that is not an origin", () => {
    const form = defineForm({
      ...contactForm,
      id: "other",
      fields: [{ name: "topic", type: "select", label: "Topic" }],
      allowedOrigins: ["https://a.example/"],
    });
    expect(() => checkForms([form])).toThrowError(/allowed origin "https:\/\/a.example\/" is not[\s\S]*a select needs options/);
  });
});

describe("the newsletter form", () => {
  it("is an e-mail address plus a consent checkbox that must be ticked, and the campaign it came from", () => {
    expect(newsletterForm.fields.map((f: FieldDef) => [f.name, f.type, f.required, f.prefill])).toEqual([
      ["email", "email", true, true],
      ["consent", "checkbox", true, undefined],
      ["source", "hidden", false, "utm_source"],
    ]);
    const refused = validateFields(newsletterForm, { email: "a@example.org" });
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.errors.consent).toBe("I agree to receive the monthly newsletter must be ticked to continue.");
    const accepted = validateFields(newsletterForm, { email: "a@example.org", consent: "on" });
    expect(accepted).toEqual({ ok: true, values: { email: "a@example.org", consent: true, source: null }, files: [] });
  });

  it("types its payload from the same schema", () => {
    const payload: FormValues<typeof newsletterForm.fields> = { email: "a@example.org", consent: true, source: null };
    expect(payload.consent).toBe(true);
  });
});

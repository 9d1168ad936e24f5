import { describe, expect, it } from "vitest";
import { checkForms } from "~/forms/check";
import { contactForm } from "~/forms/contact";
import { FORMS, publicForms } from "~/forms/registry";
import { defineForm, type FormValues } from "~/forms/schema";
import { newsletterForm } from "~/forms/newsletter";
import { validateFields } from "~/lib/submit/validation";

describe("the form registry", () => {
  it("loads both example forms and lists them as public", () => {
    expect(FORMS.map((f) => f.id)).toEqual(["contact", "newsletter"]);
    expect(publicForms().map((f) => f.id)).toEqual(["contact", "newsletter"]);
  });

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
      /duplicate form id "contact"[\s\S]*contact\.code: pattern "\(\[a-z" is not a valid regular expression[\s\S]*contact\.nolabel: every field needs a label[\s\S]*field name is reserved/,
    );
  });

  it("requires a hint on every visible field, not on hidden ones", () => {
    const form = defineForm({
      ...contactForm,
      id: "hints",
      fields: [
        { name: "shown", type: "text", label: "Shown" },
        { name: "source", type: "hidden", label: "Source" },
      ],
    });
    expect(() => checkForms([form])).toThrowError(/^Invalid form registry:\n- hints\.shown: every visible field needs a hint$/);
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
  it("is an e-mail address plus a consent checkbox that must be ticked", () => {
    expect(newsletterForm.fields.map((f) => [f.name, f.type, f.required])).toEqual([
      ["email", "email", true],
      ["consent", "checkbox", true],
    ]);
    const refused = validateFields(newsletterForm, { email: "a@example.org" });
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.errors.consent).toBe("I agree to receive the monthly newsletter must be ticked to continue.");
    const accepted = validateFields(newsletterForm, { email: "a@example.org", consent: "on" });
    expect(accepted).toEqual({ ok: true, values: { email: "a@example.org", consent: true } });
  });

  it("types its payload from the same schema", () => {
    const payload: FormValues<typeof newsletterForm.fields> = { email: "a@example.org", consent: true };
    expect(payload.consent).toBe(true);
  });
});

import { Ajv2020 } from "ajv/dist/2020";
import { describe, expect, it } from "vitest";
import { newsletterForm } from "~/forms/newsletter";
import type { FieldDef, FormDef } from "~/forms/schema";
import { checkFormDef } from "~/lib/forms/check";
import { formJsonSchema } from "~/lib/forms/json-schema";
import { prefilledValues, prefillName } from "~/lib/forms/prefill";
import { embedScript } from "~/lib/embed/script";

const FIELDS: FieldDef[] = [
  { name: "email", type: "email", label: "E-mail", maxLength: 20, prefill: true },
  { name: "source", type: "hidden", label: "Source", required: false, maxLength: 8, prefill: "utm_source" },
  { name: "plan", type: "select", label: "Plan", options: [{ value: "pro", label: "Pro" }], prefill: true },
  { name: "agree", type: "checkbox", label: "Agree", prefill: true },
  { name: "message", type: "textarea", label: "Message" },
];

function formWith(fields: FieldDef[]): FormDef {
  return { ...newsletterForm, id: "prefilled", fields, destinations: [], translations: undefined, languages: undefined } as FormDef;
}

describe("prefill", () => {
  it("reads each prefilling field's own parameter, and nothing else", () => {
    const query = new URLSearchParams("email=ada@example.org&utm_source=newsletter-march&plan=pro&agree=yes&message=hi&source=x");
    expect(prefilledValues(FIELDS, query)).toEqual({
      email: "ada@example.org",
      // Cut to the field's length: the post is validated like anything typed.
      source: "newslett",
      plan: "pro",
      agree: "true",
    });
  });

  it("drops what could never be valid and what is empty", () => {
    expect(prefilledValues(FIELDS, new URLSearchParams("plan=enterprise&agree=maybe&email="))).toEqual({});
    expect(prefillName(FIELDS[4])).toBeNull();
    expect(prefillName(FIELDS[1])).toBe("utm_source");
  });

  it("is refused on a file field, on the page's own parameters and on a name that is not one", () => {
    const file: FieldDef = { name: "cv", type: "file", label: "CV", prefill: true };
    const lang: FieldDef = { name: "note", type: "text", label: "Note", prefill: "lang" };
    const checked = checkFormDef(formWith([FIELDS[0], file, lang]));
    expect(checked.ok).toBe(false);
    const problems = checked.ok ? [] : checked.problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        "prefilled.cv: a file field cannot take a value from the address (prefill)",
        "prefilled.note: prefill names ?lang=, which the form's page reads itself (lang, embed, parent)",
      ]),
    );
    const badName = checkFormDef(formWith([{ ...FIELDS[0], prefill: "e mail" }]));
    expect(badName.ok ? [] : badName.problems.join("\n")).toMatch(/must name a query parameter/);
    expect(checkFormDef(formWith(FIELDS)).ok).toBe(true);
  });

  it("is said in the form's JSON Schema, which a strict validator still takes", () => {
    const schema = formJsonSchema(newsletterForm, "code-1", "https://forms.example");
    const properties = schema.properties as Record<string, Record<string, unknown>>;
    expect(properties.source.$comment).toBe("Prefilled from the page address's ?utm_source= parameter.");
    expect(properties.email.$comment).toBe("Prefilled from the page address's ?email= parameter.");
    expect(properties.consent.$comment).toBeUndefined();
    const validate = new Ajv2020({ strict: true, allErrors: true }).compile(schema);
    expect(validate({ email: "ada@example.org", consent: true, source: "spring" })).toBe(true);
  });

  it("reaches the framed page from the embedding page's query, without overriding the frame's own parameters", () => {
    const script = embedScript("https://forms.example");
    const frames: { src: string }[] = [];
    const element = { getAttribute: (name: string) => ({ "data-form": "newsletter" })[name] ?? null };
    const fakeWindow = {
      location: { origin: "https://shop.example", search: "?utm_source=ad&embed=0&parent=https://evil.example" },
      addEventListener: () => undefined,
    };
    const fakeDocument = {
      currentScript: { ...element, parentNode: { insertBefore: (frame: { src: string }) => frames.push(frame) }, nextSibling: null },
      createElement: () => ({ style: {} }),
    };
    new Function("window", "document", script)(fakeWindow, fakeDocument);
    const src = new URL(frames[0].src);
    expect(src.searchParams.get("utm_source")).toBe("ad");
    expect(src.searchParams.getAll("embed")).toEqual(["1"]);
    expect(src.searchParams.getAll("parent")).toEqual(["https://shop.example"]);
  });
});

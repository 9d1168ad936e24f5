import { describe, expect, it } from "vitest";
import type { FormDef, SpamRule } from "~/forms/schema";
import { checkFormDef } from "~/lib/forms/check";
import { isDisposableAddress } from "~/lib/spam/disposable.server";
import { foldForSpam } from "~/lib/spam/fold.server";
import { matchSpamRules } from "~/lib/spam/rules.server";

const FIELDS: FormDef["fields"] = [
  { name: "name", type: "text", label: "Name" },
  { name: "email", type: "email", label: "E-mail" },
  { name: "company", type: "text", label: "Company" },
  { name: "message", type: "textarea", label: "Message" },
];

function formWith(...rules: SpamRule[]): FormDef {
  return {
    id: "rules",
    title: "Rules",
    description: "",
    fields: FIELDS,
    destinations: [],
    allowedOrigins: [],
    successMessage: "Thanks",
    retentionDays: 30,
    spam: { rules },
  };
}

const ham = {
  name: "Ada Lovelace",
  email: "ada@example.org",
  company: "Analytical Engines",
  message: "Could we meet on Tuesday about the quote?",
};

describe("spam rules", () => {
  it("folds case and accents as search does, and matches phrases as whole words", () => {
    expect(foldForSpam("VÍÁGRA Straße")).toBe("viagra strasse");
    const form = formWith({ kind: "phrases", phrases: ["Cheap Viagra", "seo"], action: "quarantine" });
    expect(matchSpamRules(form, { ...ham, message: "Get CHEAP víagra now" })).toEqual({ index: 0, kind: "phrases", action: "quarantine" });
    expect(matchSpamRules(form, { ...ham, message: "We do SEO audits" })?.kind).toBe("phrases");
    // "seo" inside another word is not the phrase.
    expect(matchSpamRules(form, { ...ham, message: "Seoul office visit" })).toBeNull();
    expect(matchSpamRules(form, ham)).toBeNull();
  });

  it("matches sender domains (with subdomains) and exact addresses", () => {
    const form = formWith({ kind: "senders", senders: ["spam.example", "@bulk.test", "x@y.org"], action: "refuse" });
    expect(matchSpamRules(form, { ...ham, email: "a@mail.spam.example" })?.action).toBe("refuse");
    expect(matchSpamRules(form, { ...ham, email: "A@BULK.TEST" })?.action).toBe("refuse");
    expect(matchSpamRules(form, { ...ham, email: "x@y.org" })?.action).toBe("refuse");
    expect(matchSpamRules(form, { ...ham, email: "z@y.org" })).toBeNull();
    expect(matchSpamRules(form, { ...ham, email: "a@notspam.example" })).toBeNull();
  });

  it("knows disposable domains from the kept list, subdomains included", () => {
    expect(isDisposableAddress("someone@mailinator.com")).toBe(true);
    expect(isDisposableAddress("someone@eu.mailinator.com")).toBe(true);
    expect(isDisposableAddress("someone@gmail.com")).toBe(false);
    const form = formWith({ kind: "disposable", action: "quarantine" });
    expect(matchSpamRules(form, { ...ham, email: "tmp@mailinator.com" })?.kind).toBe("disposable");
    expect(matchSpamRules(form, ham)).toBeNull();
  });

  it("counts links in free-text fields only, against the limit", () => {
    const form = formWith({ kind: "links", max: 1, action: "quarantine" });
    expect(matchSpamRules(form, { ...ham, message: "see https://a.example" })).toBeNull();
    expect(matchSpamRules(form, { ...ham, message: "see https://a.example and www.b.example" })?.kind).toBe("links");
    expect(matchSpamRules(form, { ...ham, company: "http://c.example", message: "https://a.example" })?.kind).toBe("links");
  });

  it("holds a field to the scripts it may use; digits, punctuation and accents always pass", () => {
    const form = formWith({ kind: "scripts", field: "message", scripts: ["Latin"], action: "refuse" });
    expect(matchSpamRules(form, { ...ham, message: "Café at 10:30 — ok? ñ ü" })).toBeNull();
    expect(matchSpamRules(form, { ...ham, message: "Привет, купите" })?.kind).toBe("scripts");
    expect(matchSpamRules(form, { ...ham, message: "hello 你好" })?.kind).toBe("scripts");
  });

  it("catches a field that repeats another (folded), and not empty ones", () => {
    const form = formWith({ kind: "repeat", field: "company", of: "name", action: "quarantine" });
    expect(matchSpamRules(form, { ...ham, company: " ADA LOVELACE " })?.kind).toBe("repeat");
    expect(matchSpamRules(form, { ...ham, company: "", name: "" })).toBeNull();
    expect(matchSpamRules(form, ham)).toBeNull();
  });

  it("prefers a refusing rule to a quarantining one, whatever their order", () => {
    const form = formWith({ kind: "phrases", phrases: ["casino"], action: "quarantine" }, { kind: "links", max: 0, action: "refuse" });
    expect(matchSpamRules(form, { ...ham, message: "casino https://x.example" })).toEqual({ index: 1, kind: "links", action: "refuse" });
    expect(matchSpamRules(form, { ...ham, message: "casino night" })).toEqual({ index: 0, kind: "phrases", action: "quarantine" });
  });

  it("checks rules with the definition: fields named must exist, scripts must be real", () => {
    const bad = {
      ...formWith(
        { kind: "scripts", field: "nope", scripts: ["Latin"], action: "refuse" },
        { kind: "repeat", field: "name", of: "name", action: "quarantine" },
      ),
    };
    const check = checkFormDef(bad);
    expect(check.ok).toBe(false);
    expect(!check.ok && check.problems.join("\n")).toMatch(/names field "nope"/);
    expect(!check.ok && check.problems.join("\n")).toMatch(/compares a field with itself/);
    const unknownScript = checkFormDef(formWith({ kind: "scripts", field: "name", scripts: ["Klingon"], action: "refuse" }));
    expect(unknownScript.ok).toBe(false);
    const wrongAction = checkFormDef({ ...formWith(), spam: { rules: [{ kind: "disposable", action: "delete" }] } });
    expect(wrongAction.ok).toBe(false);
    expect(checkFormDef(formWith({ kind: "disposable", action: "quarantine" }), {}).ok).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import { checkFormDef, checkFormShape } from "~/lib/forms/check";
import { contactForm } from "~/forms/contact";
import type { FieldDef, FormDef } from "~/forms/schema";
import { draftOf } from "~/lib/form-editor/draft.server";
import { applyFieldEdit, formFileText, starterDefinition } from "~/lib/form-editor/editor-post.server";
import { kindTextsViews } from "~/lib/form-editor/kind-texts.server";
import { localizeForm } from "~/lib/i18n/localize-form";
import { describeChanges } from "~/lib/forms/changes";
import { matchesPattern, patternProblem } from "~/lib/forms/pattern";
import { validateFields } from "~/lib/submit/validation";

// The one definition check, for form files and console forms alike (ADR 044): bounds, plain text,
// https URLs, and patterns that can never make validation super-linear.

function withField(field: Partial<FieldDef>, form: Partial<FormDef> = {}): unknown {
  return { ...contactForm, id: "probe", ...form, fields: [{ name: "code", type: "text", label: "Code", hint: "A code.", ...field }] };
}

function problemsOf(value: unknown): string[] {
  const check = checkFormDef(value);
  return check.ok ? [] : check.problems;
}

describe("patterns", () => {
  it("refuses the catastrophic (a+)+$ and its kin, saying why and where the language is described", () => {
    for (const pattern of ["(a+)+$", "(a*)*b", "([a-z]+)*@", "(x+x+)+y"]) {
      expect(patternProblem(pattern), pattern).toMatch(/more than one way|can match nothing|two ways at one point/);
      expect(problemsOf(withField({ pattern })).join("\n")).toMatch(
        /probe\.code: pattern .* \(patterns are written in the language RE2 and JavaScript share: docs\/forms\.md#patterns\)$/,
      );
    }
  });

  it("refuses what RE2 cannot bound: backreferences and lookaround", () => {
    for (const pattern of ["(a)\\1", "(?=a)a", "(?<!x)y", "(?<n>a)\\k<n>"]) {
      expect(patternProblem(pattern), pattern).toMatch(/lookaround|uses \\1/);
    }
  });

  it("refuses invalid and overlong patterns, accepts the usual ones", () => {
    expect(patternProblem("([a-z")).toMatch(/without its/);
    expect(patternProblem("a".repeat(201))).toMatch(/longer than 200/);
    for (const pattern of ["[A-Z]{2}[0-9]{4}", "[^@ ]+@[^@ ]+", "(ab|cd){1,3}", "\\+?[0-9 ]{6,20}", "\\d{5}(-\\d{4})?"]) {
      expect(patternProblem(pattern), pattern).toBeNull();
    }
  });

  it("matches in time linear in the input, even a pattern the check refuses, should a stored definition hold it", () => {
    const input = `${"a".repeat(50_000)}!`;
    expect(matchesPattern("(a|a)*b", input)).toBe(false);
    // RE2 answers at once instead of hanging.
    expect(matchesPattern("(a+)+$", input)).toBe(false);
    expect(matchesPattern("(a+)+$", "aaaa")).toBe(true);
  });

  it("validates a field's whole value against its pattern with RE2", () => {
    const form = checkFormDef(withField({ pattern: "[A-Z]{2}[0-9]{4}", patternMessage: "Two letters, four digits." }));
    if (!form.ok) throw new Error(form.problems.join("; "));
    expect(validateFields(form.form, { code: "AB1234" })).toEqual({ ok: true, values: { code: "AB1234" }, files: [] });
    const refused = validateFields(form.form, { code: "xAB1234" });
    expect(!refused.ok && refused.errors.code).toBe("Two letters, four digits.");
    // The accept path's own validation, on a version published before ADR 089 whose pattern the check
    // now refuses: still served, matched with RE2 (a backtracking RegExp would not return in a lifetime).
    expect(checkFormDef(withField({ pattern: "(a|a)*b", maxLength: 10_000 })).ok).toBe(false);
    const stored = checkFormDef(withField({ pattern: "(a|a)*b", maxLength: 10_000 }), { published: true });
    if (!stored.ok) throw new Error(stored.problems.join("; "));
    expect(validateFields(stored.form, { code: `${"a".repeat(9_000)}!` }).ok).toBe(false);
    expect(validateFields(stored.form, { code: "aab" }).ok).toBe(true);
  });
});

describe("the definition check", () => {
  it("passes the form files as they are", () => {
    expect(checkFormDef(contactForm)).toEqual({ ok: true, form: contactForm });
  });

  it("bounds ids, names, texts, lists and numbers", () => {
    expect(problemsOf({ ...contactForm, id: "Contact Us" }).join("\n")).toMatch(/form id "Contact Us" must be lower-case/);
    // The id is the form's Turnstile action, which Cloudflare caps at 32 characters.
    expect(problemsOf({ ...contactForm, id: "a".repeat(32) })).toEqual([]);
    expect(problemsOf({ ...contactForm, id: "a".repeat(33) }).join("\n")).toMatch(/id: Too big/);
    expect(problemsOf(withField({ name: "x".repeat(41) })).join("\n")).toMatch(/name: Too big/);
    expect(problemsOf(withField({ label: "L".repeat(201) })).join("\n")).toMatch(/label: Too big/);
    expect(problemsOf(withField({ maxLength: 10_000_000 })).join("\n")).toMatch(/maxLength: must be a whole number from 1 to 65536/);
    expect(
      problemsOf({ ...contactForm, fields: Array.from({ length: 51 }, (_, i) => ({ ...contactForm.fields[0], name: `f${i}` })) }).join(
        "\n",
      ),
    ).toMatch(/fields: Too big/);
    expect(problemsOf({ ...contactForm, retentionDays: 0 }).join("\n")).toMatch(/retentionDays must be positive/);
    expect(problemsOf({ ...contactForm, rateLimit: { perMinute: 0, perDay: 10 } }).join("\n")).toMatch(/rateLimit\.perMinute/);
    expect(problemsOf({ ...contactForm, surprise: true }).join("\n")).toMatch(/Unrecognized key/);
  });

  it("keeps texts plain: no control characters, one line where a label goes", () => {
    expect(problemsOf(withField({ label: "Code\n<script>" })).join("\n")).toMatch(/label: must be one line of plain text/);
    expect(problemsOf(withField({ hint: "a\u0000b" })).join("\n")).toMatch(/hint: must be plain text/);
    expect(problemsOf(withField({ label: "Code \u202Eevil" })).join("\n")).toMatch(/must be one line of plain text/);
    // Markup is text: it is kept, and shown escaped wherever it goes.
    expect(problemsOf(withField({ label: "<b>Code</b>" }))).toEqual([]);
  });

  it("takes https redirect URLs only, loopback http only where ALLOW_LOOPBACK_WEBHOOKS says so", () => {
    expect(problemsOf({ ...contactForm, redirectUrl: "http://example.org/thanks" }).join("\n")).toMatch(/redirectUrl must be an https URL/);
    expect(problemsOf({ ...contactForm, redirectUrl: "javascript:alert(1)" }).join("\n")).toMatch(/redirectUrl must be an https URL/);
    expect(problemsOf({ ...contactForm, redirectUrl: "https://example.org/thanks" })).toEqual([]);
    const local = { ...contactForm, redirectUrl: "http://localhost:8788/thanks" };
    expect(problemsOf(local)).not.toEqual([]);
    expect(checkFormDef(local, { allowLoopbackHttp: true }).ok).toBe(true);
  });

  it("checks file fields in the agreed shape: types from the allow-list, counts and sizes bounded", () => {
    expect(
      problemsOf(withField({ type: "file", accept: ["application/pdf", "image/png"], maxFiles: 3, maxBytes: 5 * 1024 * 1024 })),
    ).toEqual([]);
    expect(problemsOf(withField({ type: "file", accept: ["text/html" as never] })).join("\n")).toMatch(/accept/);
    expect(problemsOf(withField({ type: "file", accept: ["image/svg+xml" as never] })).join("\n")).toMatch(/accept/);
    expect(problemsOf(withField({ type: "file", maxFiles: 100 })).join("\n")).toMatch(/maxFiles: must be a whole number from 1 to 10/);
    expect(problemsOf(withField({ type: "text", maxFiles: 2 })).join("\n")).toMatch(/are for file fields/);
  });

  it("keeps a draft whose shape is right while naming what is still wrong with it", () => {
    const draft = withField({ label: "" });
    expect(checkFormShape(draft).ok).toBe(true);
    expect(problemsOf(draft)).toEqual(["probe.code: every field needs a label"]);
    // A hint is optional: a field without one is no problem.
    expect(problemsOf(withField({ hint: undefined }))).toEqual([]);
  });
});

describe("the console editor's post", () => {
  it("reads a whole draft from the editor's inputs", () => {
    const params = new URLSearchParams({
      title: " Job application ",
      description: "Apply here.",
      successMessage: "Thanks.",
      retentionDays: "30",
      perMinute: "3",
      perDay: "20",
      allowedOrigins: "https://a.example\nhttps://b.example",
      public: "on",
      "fields.0.name": "fullName",
      "fields.0.type": "text",
      "fields.0.label": "Full name",
      "fields.0.hint": "As on your passport.",
      "fields.0.required": "on",
      "fields.0.maxLength": "120",
      "fields.1.name": "role",
      "fields.1.type": "select",
      "fields.1.label": "Role",
      "fields.1.hint": "Pick one.",
      "fields.1.options": "dev | Developer\ndesign",
      "fields.2.name": "cv",
      "fields.2.type": "file",
      "fields.2.label": "CV",
      "fields.2.hint": "A PDF.",
      "fields.2.maxMb": "2",
    });
    params.append("fields.2.accept", "application/pdf");
    const draft = draftOf(params, "jobs");
    expect(draft).toMatchObject({
      id: "jobs",
      title: "Job application",
      retentionDays: 30,
      rateLimit: { perMinute: 3, perDay: 20 },
      allowedOrigins: ["https://a.example", "https://b.example"],
      public: true,
    });
    expect(draft.fields).toEqual([
      { name: "fullName", type: "text", label: "Full name", hint: "As on your passport.", required: true, maxLength: 120 },
      {
        name: "role",
        type: "select",
        label: "Role",
        hint: "Pick one.",
        options: [
          { value: "dev", label: "Developer" },
          { value: "design", label: "design" },
        ],
      },
      { name: "cv", type: "file", label: "CV", hint: "A PDF.", accept: ["application/pdf"], maxBytes: 2 * 1024 * 1024 },
    ]);
    expect(checkFormDef(draft).ok).toBe(true);
    expect(checkFormDef(draftOf(new URLSearchParams({ ...Object.fromEntries(params), retentionDays: "soon" }), "jobs")).ok).toBe(false);
  });

  it("reads each kind's own texts as <kind>.<key>, the kind present only when one is set, and localizes them", () => {
    const sections = kindTextsViews();
    const confirmation = sections.find((section) => section.kind === "confirmation")!;
    expect(confirmation.fields.map((f) => f.key)).toEqual(["subject", "text"]);
    expect(confirmation.needs.join(" ")).toContain("Email Sending");
    const base = {
      title: "T",
      successMessage: "Thanks.",
      retentionDays: "30",
      "fields.0.name": "email",
      "fields.0.type": "email",
      "fields.0.label": "E-mail",
    };
    const none = draftOf(new URLSearchParams(base), "jobs");
    expect(none.destinations.map((d) => d.kind)).not.toContain("confirmation");
    const draft = draftOf(
      new URLSearchParams({ ...base, "confirmation.subject": " Thanks ", "confirmation.text": "We got it.\r\nBye" }),
      "jobs",
    );
    expect(draft.destinations.find((d) => d.kind === "confirmation")).toEqual({
      kind: "confirmation",
      subject: "Thanks",
      text: "We got it.\nBye",
    });
    const translated = { ...draft, languages: ["en", "de"] as const, translations: { de: { confirmation: { subject: "Danke" } } } };
    expect(checkFormDef(translated).ok).toBe(true);
    expect(localizeForm(translated, "de").destinations.find((d) => d.kind === "confirmation")).toEqual({
      kind: "confirmation",
      subject: "Danke",
      text: "We got it.\nBye",
    });
    expect(checkFormDef({ ...translated, translations: { de: { confirmation: { subject: "x".repeat(201) } } } }).ok).toBe(false);
  });

  it("adds, removes and moves fields, saying which to focus", () => {
    const draft = starterDefinition("x", "X");
    const added = applyFieldEdit(draft, { kind: "add" });
    expect(added.draft.fields.map((f) => f.name)).toEqual(["name", "email", "message", "field4"]);
    expect(added.focus).toBe(3);
    const up = applyFieldEdit(draft, { kind: "up", index: 2 });
    expect([up.draft.fields.map((f) => f.name), up.focus]).toEqual([["name", "message", "email"], 1]);
    expect(applyFieldEdit(draft, { kind: "up", index: 0 }).draft).toBe(draft);
    const removed = applyFieldEdit(draft, { kind: "remove", index: 2 });
    expect([removed.draft.fields.map((f) => f.name), removed.focus]).toEqual([["name", "email"], 1]);
  });

  it("exports a console form as a form file that holds the same definition", () => {
    const form = { ...starterDefinition("job-application", "Jobs") };
    const text = formFileText(form);
    expect(text).toMatch(/^import \{ defineForm \} from "~\/forms\/schema";\n\nexport const jobApplicationForm = defineForm\(/);
    const json = text.slice(text.indexOf("defineForm(") + "defineForm(".length, text.lastIndexOf(");"));
    expect(JSON.parse(json)).toEqual(form);
    expect(checkFormDef(JSON.parse(json)).ok).toBe(true);
  });
});

describe("what changed, for the audit log", () => {
  it("names added, removed, changed and reordered fields and changed settings, never values", () => {
    const before = starterDefinition("x", "X");
    const after: FormDef = {
      ...before,
      title: "Y",
      retentionDays: 30,
      fields: [{ ...before.fields[1], label: "Mail" }, before.fields[0], { name: "phone", type: "text", label: "Phone", hint: "Yours." }],
    };
    expect(describeChanges(before, after)).toEqual([
      "title changed",
      "retentionDays 90 → 30",
      "field message removed",
      "field email: label changed",
      "field phone added (text)",
      "fields reordered",
    ]);
    expect(describeChanges(null, before)).toEqual(["created with 3 fields"]);
    expect(describeChanges(before, before)).toEqual([]);
  });
});

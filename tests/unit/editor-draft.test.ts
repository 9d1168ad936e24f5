import { describe, expect, it } from "vitest";
import { FIELD_TYPES, type FieldDef } from "~/forms/schema";
import { draftOf } from "~/lib/form-editor/draft.server";
import { FIELD_SETTINGS } from "~/lib/form-editor/field-settings";
import { applyFieldEdit, readEditorPost, starterDefinition } from "~/lib/form-editor/editor-post.server";
import { checkFormDef } from "~/lib/forms/check";

// The editor shows each field type only its own settings (issue 51): a post is read the same way, so a
// setting left in a post from another type never rides into the definition unseen.

/** The FieldDef keys each of the editor's settings fills. */
const KEYS = {
  hint: ["hint"],
  length: ["minLength", "maxLength"],
  pattern: ["pattern", "patternMessage"],
  autocomplete: ["autocomplete"],
  range: ["min", "max"],
  options: ["options"],
  files: ["accept", "maxFiles", "maxBytes"],
} as const;

/** Every setting of every type filled in, as a post from an editor that showed them all would be. */
function everything(type: string): URLSearchParams {
  const params = new URLSearchParams({
    title: "T",
    successMessage: "Thanks.",
    retentionDays: "30",
    "fields.0.name": "probe",
    "fields.0.type": type,
    "fields.0.label": "Probe",
    "fields.0.hint": "A hint.",
    "fields.0.required": "on",
    "fields.0.minLength": "1",
    "fields.0.maxLength": "9",
    "fields.0.pattern": "[a-z]+",
    "fields.0.patternMessage": "Lower case.",
    "fields.0.autocomplete": "name",
    "fields.0.min": "1",
    "fields.0.max": "9",
    "fields.0.options": "a | A\nb",
    "fields.0.maxFiles": "2",
    "fields.0.maxMb": "1",
  });
  params.append("fields.0.accept", "application/pdf");
  return params;
}

describe("the editor's post, read by type", () => {
  it("keeps exactly the settings each type owns, and nothing of the others", () => {
    for (const type of FIELD_TYPES) {
      const field = draftOf(everything(type), "probe").fields[0];
      const owned = FIELD_SETTINGS[type].flatMap((setting) => KEYS[setting]);
      const expected = ["name", "type", "label", "required", ...owned].sort();
      expect([type, Object.keys(field).sort()]).toEqual([type, expected]);
    }
  });

  it("gives each type a setting of its own where it has one: options for a choice, a range for a number, sizes for a file", () => {
    const choice = draftOf(everything("select"), "probe").fields[0];
    expect(choice.options).toEqual([
      { value: "a", label: "A" },
      { value: "b", label: "b" },
    ]);
    expect(draftOf(everything("number"), "probe").fields[0]).toMatchObject({ min: 1, max: 9 } satisfies Partial<FieldDef>);
    expect(draftOf(everything("file"), "probe").fields[0]).toMatchObject({
      accept: ["application/pdf"],
      maxFiles: 2,
      maxBytes: 1024 * 1024,
    });
    expect(FIELD_SETTINGS.checkbox).toEqual(["hint"]);
  });

  it("adds a new field as required, which the check accepts", () => {
    const added = applyFieldEdit(starterDefinition("x", "X"), { kind: "add" });
    expect(added.draft.fields.at(-1)).toMatchObject({ name: "field4", required: true });
    expect(checkFormDef(added.draft).ok).toBe(true);
  });

  it("reads a preview post as the draft typed, with the preview intent", async () => {
    const params = everything("text");
    params.set("intent", "preview");
    const request = new Request("https://gatepost.test/admin/forms/probe", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: params,
    });
    const post = await readEditorPost(request, "probe");
    expect(post.intent).toEqual({ kind: "preview" });
    expect(post.draft.fields[0].label).toBe("Probe");
  });
});

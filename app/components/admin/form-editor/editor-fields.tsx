import { useEffect } from "react";
import type { FormDef } from "~/forms/schema";
import type { KindTextsView } from "~/lib/form-editor/kind-texts.server";
import { FieldEditor } from "~/components/admin/form-editor/field-editor";
import { FormSettings, KindTexts } from "~/components/admin/form-editor/form-settings";

// The console's form editor: the whole draft as native, labelled inputs in one plain form, so it works
// with a keyboard, a screen reader and without JavaScript. After an add, move or remove the field
// acted on takes focus again (its heading, which says where it went).

/** The editor's inputs for `draft`; the caller wraps them in its <Form> with the action buttons. */
export function FormEditorFields({
  draft,
  revision,
  focus,
  kindTexts,
  onTitle,
}: {
  draft: FormDef;
  revision: string;
  focus: number | null;
  kindTexts: readonly KindTextsView[];
  onTitle: (title: string) => void;
}) {
  useEffect(() => {
    if (focus !== null) document.getElementById(`editor-field-${focus}`)?.focus();
  }, [focus, revision]);
  return (
    <div key={revision}>
      <FormSettings draft={draft} onTitle={onTitle} />
      <h2>Fields</h2>
      <p className="small">
        A field&apos;s name is what webhooks and exports carry (letters and digits, starting lower-case): receivers depend on it.
        Autocomplete takes an HTML token such as name, email or tel. Patterns are written in the language RE2 and JavaScript share: no . or
        \s, and each choice starting with different characters (docs/forms.md#patterns).
      </p>
      {draft.fields.map((field, index) => (
        <FieldEditor
          key={`${revision}:${index}`}
          field={field}
          index={index}
          count={draft.fields.length}
          fields={draft.fields}
          step={draft.steps?.find((step) => step.fields[0] === field.name)?.title ?? ""}
        />
      ))}
      <p>
        <button type="submit" name="intent" value="add" className="secondary">
          Add a field
        </button>
      </p>
      {kindTexts.map((section) => (
        <KindTexts key={section.kind} section={section} draft={draft} />
      ))}
    </div>
  );
}

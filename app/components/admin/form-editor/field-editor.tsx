import { useState } from "react";
import { FIELD_TYPES, type FieldDef, type FieldType } from "~/forms/schema";
import { hasSetting } from "~/lib/form-editor/field-settings";
import { Check, Input, TextArea } from "~/components/admin/form-editor/inputs";
import { TypeSettings } from "~/components/admin/form-editor/type-settings";
import { ConditionSettings } from "~/components/admin/form-editor/condition-settings";

// One field of the draft: a fieldset named by its heading, which follows the label as it is typed.
// Changing the type swaps in that type's own settings at once; without JavaScript they follow the
// saved type, after Save. Move up, Move down and Remove are real buttons that post with their intent.

const TYPE_LABELS: Record<FieldType, string> = {
  text: "Text (one line)",
  email: "E-mail address",
  textarea: "Text (several lines)",
  select: "Choice from a list",
  checkbox: "Checkbox",
  number: "Number",
  url: "Web address",
  hidden: "Hidden value",
  file: "File upload",
};

export function FieldEditor({
  field,
  index,
  count,
  fields,
  step,
}: {
  field: FieldDef;
  index: number;
  count: number;
  /** The form's fields: its condition may read those before it. */
  fields: readonly FieldDef[];
  /** The title of the step it starts ("" for none). */
  step: string;
}) {
  const [label, setLabel] = useState(field.label);
  const [type, setType] = useState(field.type);
  const p = `fields.${index}.`;
  const id = (key: string) => `f${index}-${key}`;
  const heading = `editor-field-${index}`;
  return (
    <fieldset className="editor-field" aria-labelledby={heading}>
      <h3 id={heading} tabIndex={-1}>
        {`Field ${index + 1} of ${count}: ${label || field.name || "unnamed"}`}
      </h3>
      <div className="editor-grid">
        <Input
          id={id("label")}
          name={`${p}label`}
          label="Label"
          defaultValue={field.label}
          maxLength={200}
          onChange={(e) => setLabel(e.target.value)}
        />
        <Input
          id={id("name")}
          name={`${p}name`}
          label="Field name"
          defaultValue={field.name}
          maxLength={40}
          autoCapitalize="off"
          spellCheck={false}
        />
        <div className="field">
          <label htmlFor={id("type")}>Type</label>
          <select
            id={id("type")}
            name={`${p}type`}
            className="control"
            defaultValue={field.type}
            onChange={(e) => setType(e.target.value as FieldType)}
          >
            {FIELD_TYPES.map((t) => (
              <option key={t} value={t}>
                {TYPE_LABELS[t]}
              </option>
            ))}
          </select>
        </div>
        <Check id={id("required")} name={`${p}required`} label="Required" defaultChecked={field.required === true} />
      </div>
      {hasSetting(type, "hint") ? (
        <TextArea
          id={id("hint")}
          name={`${p}hint`}
          label="Hint"
          hint="Shown under the label and read out with the field: what to enter."
          defaultValue={field.hint ?? ""}
          maxLength={500}
          rows={1}
          className="control short"
        />
      ) : null}
      <TypeSettings field={field} type={type} index={index} />
      <ConditionSettings field={field} index={index} fields={fields} step={step} />
      <div className="editor-moves">
        <button type="submit" name="intent" value={`up:${index}`} className="secondary" disabled={index === 0} aria-describedby={heading}>
          Move up
        </button>
        <button
          type="submit"
          name="intent"
          value={`down:${index}`}
          className="secondary"
          disabled={index === count - 1}
          aria-describedby={heading}
        >
          Move down
        </button>
        <button type="submit" name="intent" value={`remove:${index}`} className="secondary" aria-describedby={heading}>
          Remove
        </button>
      </div>
    </fieldset>
  );
}

import { useEffect } from "react";
import { FIELD_TYPES, UPLOAD_TYPES, type FieldDef, type FormDef } from "~/forms/schema";
import type { KindTextsView } from "~/lib/admin/form-editor.server";

// The console's form editor: the whole draft as native, labelled inputs in one plain form, so it works
// with a keyboard, a screen reader and without JavaScript. Each field is a fieldset whose legend names
// it; Move up, Move down and Remove are real buttons that post the draft with their intent, and the
// field they acted on takes focus again afterwards (its heading, which says where it went).

const TYPE_LABELS: Record<FieldDef["type"], string> = {
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
const MB = 1024 * 1024;

function Input({ id, label, hint, ...rest }: { id: string; label: string; hint?: string } & React.InputHTMLAttributes<HTMLInputElement>) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
      <input id={id} className="control" aria-describedby={hint ? `${id}-hint` : undefined} {...rest} />
    </div>
  );
}

function TextArea({
  id,
  label,
  hint,
  ...rest
}: { id: string; label: string; hint?: string } & React.TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
      <textarea id={id} className="control" rows={3} aria-describedby={hint ? `${id}-hint` : undefined} {...rest} />
    </div>
  );
}

function Check({ id, label, ...rest }: { id: string; label: string } & React.InputHTMLAttributes<HTMLInputElement>) {
  return (
    <div className="field checkbox">
      <label htmlFor={id}>
        <input id={id} type="checkbox" {...rest} />
        <span>{label}</span>
      </label>
    </div>
  );
}

const num = (n: number | undefined, scale = 1) => (n === undefined || Number.isNaN(n) ? "" : String(n / scale));

function FieldEditor({ field, index, count }: { field: FieldDef; index: number; count: number }) {
  const p = `fields.${index}.`;
  const id = (key: string) => `f${index}-${key}`;
  return (
    <fieldset className="editor-field" aria-labelledby={`editor-field-${index}`}>
      <h3 id={`editor-field-${index}`} tabIndex={-1}>
        {`Field ${index + 1} of ${count}: ${field.label || field.name || "unnamed"}`}
      </h3>
      <div className="editor-grid">
        <Input id={id("label")} name={`${p}label`} label="Label" defaultValue={field.label} maxLength={200} />
        <Input
          id={id("name")}
          name={`${p}name`}
          label="Field name"
          hint="In the payload and the export: letters and digits, starting lower-case. Receivers depend on it."
          defaultValue={field.name}
          maxLength={40}
          autoCapitalize="off"
          spellCheck={false}
        />
        <div className="field">
          <label htmlFor={id("type")}>Type</label>
          <select id={id("type")} name={`${p}type`} className="control" defaultValue={field.type}>
            {FIELD_TYPES.map((type) => (
              <option key={type} value={type}>
                {TYPE_LABELS[type]}
              </option>
            ))}
          </select>
        </div>
        <Check id={id("required")} name={`${p}required`} label="Required" defaultChecked={field.required === true} />
      </div>
      <TextArea
        id={id("hint")}
        name={`${p}hint`}
        label="Hint"
        hint="Optional, and suggested: shown under the label and read out with the field, it tells people what to enter."
        defaultValue={field.hint ?? ""}
        maxLength={500}
        rows={2}
      />
      <details>
        <summary>{`Limits and format of ${field.label || "this field"}`}</summary>
        <div className="editor-grid">
          <Input
            id={id("minLength")}
            name={`${p}minLength`}
            label="Fewest characters"
            inputMode="numeric"
            defaultValue={num(field.minLength)}
          />
          <Input
            id={id("maxLength")}
            name={`${p}maxLength`}
            label="Most characters"
            inputMode="numeric"
            defaultValue={num(field.maxLength)}
          />
          <Input
            id={id("min")}
            name={`${p}min`}
            label="Smallest number"
            hint="Number fields only."
            inputMode="decimal"
            defaultValue={num(field.min)}
          />
          <Input
            id={id("max")}
            name={`${p}max`}
            label="Largest number"
            hint="Number fields only."
            inputMode="decimal"
            defaultValue={num(field.max)}
          />
        </div>
        <Input
          id={id("pattern")}
          name={`${p}pattern`}
          label="Pattern"
          hint="What the whole value must match, e.g. [A-Z]{2}[0-9]{4}, in the language RE2 and JavaScript share: no . or \s, and each choice starting with different characters (docs/forms.md#patterns)."
          defaultValue={field.pattern ?? ""}
          maxLength={200}
          autoCapitalize="off"
          spellCheck={false}
        />
        <Input
          id={id("patternMessage")}
          name={`${p}patternMessage`}
          label="Message when the pattern does not match"
          defaultValue={field.patternMessage ?? ""}
          maxLength={200}
        />
        <TextArea
          id={id("options")}
          name={`${p}options`}
          label="Options"
          hint="Choice fields only: one per line, as “value | Label” or just the label."
          defaultValue={(field.options ?? []).map((o) => (o.value === o.label ? o.value : `${o.value} | ${o.label}`)).join("\n")}
        />
        <Input
          id={id("autocomplete")}
          name={`${p}autocomplete`}
          label="Autocomplete"
          hint="An HTML autocomplete token such as name, email or tel."
          defaultValue={field.autocomplete ?? ""}
          maxLength={100}
        />
        <fieldset className="editor-accept">
          <legend>File types accepted (file fields only; none ticked: all of them)</legend>
          {UPLOAD_TYPES.map((type) => (
            <Check
              key={type}
              id={id(`accept-${type}`)}
              name={`${p}accept`}
              value={type}
              label={type}
              defaultChecked={field.accept?.includes(type) === true}
            />
          ))}
        </fieldset>
        <div className="editor-grid">
          <Input
            id={id("maxFiles")}
            name={`${p}maxFiles`}
            label="Most files"
            hint="File fields only; 1 when empty."
            inputMode="numeric"
            defaultValue={num(field.maxFiles)}
          />
          <Input
            id={id("maxMb")}
            name={`${p}maxMb`}
            label="Largest file (MB)"
            hint="File fields only; 10 when empty."
            inputMode="decimal"
            defaultValue={num(field.maxBytes, MB)}
          />
        </div>
      </details>
      <div className="editor-moves">
        <button
          type="submit"
          name="intent"
          value={`up:${index}`}
          className="secondary"
          disabled={index === 0}
          aria-describedby={`editor-field-${index}`}
        >
          Move up
        </button>
        <button
          type="submit"
          name="intent"
          value={`down:${index}`}
          className="secondary"
          disabled={index === count - 1}
          aria-describedby={`editor-field-${index}`}
        >
          Move down
        </button>
        <button type="submit" name="intent" value={`remove:${index}`} className="secondary" aria-describedby={`editor-field-${index}`}>
          Remove
        </button>
      </div>
    </fieldset>
  );
}

/** A kind's own texts (a confirmation's subject and text), posted as `<kind>.<key>`; all empty: the kind is not in the form. */
function KindTexts({ section, draft }: { section: KindTextsView; draft: FormDef }) {
  const own = draft.destinations.find((d) => d.kind === section.kind) as Readonly<Record<string, unknown>> | undefined;
  return (
    <fieldset className="editor-section">
      <legend>{section.legend}</legend>
      <p className="small">{section.intro}</p>
      {section.needs.map((need) => (
        <p key={need} className="small">
          {need}
        </p>
      ))}
      {section.fields.map((field) => {
        const props = {
          id: `e-${section.kind}-${field.key}`,
          name: `${section.kind}.${field.key}`,
          label: field.label,
          hint: field.hint,
          defaultValue: typeof own?.[field.key] === "string" ? (own[field.key] as string) : "",
          maxLength: field.max,
        };
        return field.multiline ? <TextArea key={field.key} {...props} rows={4} /> : <Input key={field.key} {...props} />;
      })}
    </fieldset>
  );
}

/** The editor's inputs for `draft`; the caller wraps them in its <Form> with the action buttons. */
export function FormEditorFields({
  draft,
  revision,
  focus,
  kindTexts,
}: {
  draft: FormDef;
  revision: string;
  focus: number | null;
  kindTexts: readonly KindTextsView[];
}) {
  useEffect(() => {
    if (focus !== null) document.getElementById(`editor-field-${focus}`)?.focus();
  }, [focus, revision]);
  return (
    <div key={revision}>
      <fieldset className="editor-section">
        <legend>The form</legend>
        <Input id="e-title" name="title" label="Title" defaultValue={draft.title} maxLength={120} required />
        <TextArea
          id="e-description"
          name="description"
          label="Description"
          hint="Shown under the title."
          defaultValue={draft.description}
          maxLength={1000}
        />
        <TextArea
          id="e-success"
          name="successMessage"
          label="Success message"
          hint="Shown on the thank-you page."
          defaultValue={draft.successMessage}
          maxLength={1000}
        />
        <div className="editor-grid">
          <Input
            id="e-retention"
            name="retentionDays"
            label="Keep submissions for (days)"
            inputMode="numeric"
            defaultValue={num(draft.retentionDays)}
          />
          <Input
            id="e-per-minute"
            name="perMinute"
            label="Posts per minute per network"
            hint="Empty: the site's default."
            inputMode="numeric"
            defaultValue={num(draft.rateLimit?.perMinute)}
          />
          <Input
            id="e-per-day"
            name="perDay"
            label="Posts per day per network"
            hint="Empty: the site's default."
            inputMode="numeric"
            defaultValue={num(draft.rateLimit?.perDay)}
          />
          <Input
            id="e-upload"
            name="maxUploadMb"
            label="All files of one submission (MB)"
            hint="Forms with file fields; 25 when empty."
            inputMode="decimal"
            defaultValue={num(draft.maxUploadBytes, MB)}
          />
        </div>
        <Input
          id="e-redirect"
          name="redirectUrl"
          label="Redirect URL"
          hint="Where a plain HTML post from another site lands after success (https)."
          type="url"
          defaultValue={draft.redirectUrl ?? ""}
          maxLength={2000}
        />
        <TextArea
          id="e-origins"
          name="allowedOrigins"
          label="Allowed origins"
          hint="Other sites that may post to this form, one origin (https://www.example.org) per line."
          defaultValue={draft.allowedOrigins.join("\n")}
        />
        <Check id="e-public" name="public" label="List this form on the site's front page" defaultChecked={draft.public === true} />
        <Input
          id="e-languages"
          name="languages"
          label="Languages"
          hint="The languages the form is offered in, its own texts' first, separated by spaces: en de fr es it pt nl pl ja ar."
          defaultValue={(draft.languages ?? []).join(" ")}
        />
        <TextArea
          id="e-translations"
          name="translations"
          label="Translations (JSON)"
          hint='The texts in each other language, e.g. {"de": {"title": "Kontakt", "fields": {"email": {"label": "E-Mail"}}}} (docs/forms.md#languages).'
          defaultValue={draft.translations ? JSON.stringify(draft.translations, null, 2) : ""}
        />
        <TextArea
          id="e-spam"
          name="spam"
          label="Spam rules (JSON)"
          hint='Rules and the filter threshold, e.g. {"rules": [{"kind": "links", "max": 2, "action": "quarantine"}], "threshold": 0.9} (docs/forms.md#spam).'
          defaultValue={draft.spam ? JSON.stringify(draft.spam, null, 2) : ""}
        />
      </fieldset>
      <h2>Fields</h2>
      {draft.fields.map((field, index) => (
        <FieldEditor key={`${revision}:${index}`} field={field} index={index} count={draft.fields.length} />
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

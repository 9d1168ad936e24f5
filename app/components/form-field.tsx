import type { FieldDef } from "~/forms/schema";
import { FileField } from "~/components/file-field";
import type { FieldTexts } from "~/lib/i18n/messages/types";

// Renders one schema field with its label, hint and error wired up for assistive technology:
// the error sets aria-invalid and joins the hint in aria-describedby.
export function FormField({ field, value, error, texts }: { field: FieldDef; value: string; error?: string; texts: FieldTexts }) {
  const id = `field-${field.name}`;
  const hintId = field.hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  const common = {
    id,
    className: field.type === "checkbox" ? undefined : "control",
    name: field.name,
    required: field.required,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": describedBy,
    autoComplete: field.autocomplete,
  };
  if (field.type === "hidden") return <input type="hidden" name={field.name} defaultValue={value} />;
  if (field.type === "file") return <FileField field={field} error={error} texts={texts} />;

  const hint = field.hint ? (
    <span className="hint" id={hintId}>
      {field.hint}
    </span>
  ) : null;
  const errorText = error ? (
    <span className="error" id={errorId}>
      {error}
    </span>
  ) : null;
  if (field.type === "checkbox") {
    return (
      <div className="field checkbox">
        <label htmlFor={id}>
          <input type="checkbox" {...common} defaultChecked={value === "true" || value === "on"} />
          <span>{field.label}</span>
        </label>
        {hint}
        {errorText}
      </div>
    );
  }
  return (
    <div className="field">
      <label htmlFor={id}>
        {field.label}
        {field.required ? null : <span className="optional">{texts.page.optional}</span>}
      </label>
      {hint}
      {errorText}
      {field.type === "textarea" ? (
        <textarea {...common} maxLength={field.maxLength} defaultValue={value} rows={6} />
      ) : field.type === "select" ? (
        <select {...common} defaultValue={value}>
          <option value="">{texts.page.choose}</option>
          {field.options?.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      ) : (
        <input
          {...common}
          type={field.type}
          defaultValue={value}
          maxLength={field.maxLength}
          min={field.min}
          max={field.max}
          inputMode={field.type === "number" ? "decimal" : undefined}
        />
      )}
    </div>
  );
}

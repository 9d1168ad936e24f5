import type { FieldDef, FieldValue } from "~/forms/schema";

// A submission's values under the labels its form gives them, in the form's order; checkboxes read
// Yes or No. Values the form no longer defines (a field removed since) still show, under their name.

function show(field: FieldDef | undefined, value: FieldValue): string {
  if (value === null || value === "") return "—";
  if (Array.isArray(value))
    return value.length > 0 ? value.map((file) => `${file.name} (${file.type}, ${file.size} bytes)`).join(", ") : "—";
  if (typeof value === "boolean" || field?.type === "checkbox") return value === true || value === "true" ? "Yes" : "No";
  if (field?.type === "select") return field.options?.find((o) => o.value === value)?.label ?? String(value);
  return String(value);
}

/** The fields as a description list; values are text, so React escapes whatever a submitter typed. */
export function FieldList({ fields, values }: { fields: readonly FieldDef[]; values: Record<string, FieldValue> }) {
  const known = fields.filter((f) => f.name in values);
  const others = Object.keys(values).filter((name) => !fields.some((f) => f.name === name));
  return (
    <dl>
      {known.map((field) => (
        <div key={field.name} className="contents">
          <dt>{field.label}</dt>
          <dd>{field.type === "textarea" ? <pre>{show(field, values[field.name])}</pre> : show(field, values[field.name])}</dd>
        </div>
      ))}
      {others.map((name) => (
        <div key={name} className="contents">
          <dt>
            <code>{name}</code>
          </dt>
          <dd>
            <pre>{show(undefined, values[name])}</pre>
          </dd>
        </div>
      ))}
    </dl>
  );
}

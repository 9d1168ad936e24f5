import type { Condition, FieldDef } from "~/forms/schema";
import { Input } from "~/components/admin/form-editor/inputs";

// A field's condition and step in the editor, without JSON (docs/forms.md#conditions): up to three
// tests on earlier fields, all or any of them, and the title of a step the field starts. The draft
// check refuses a test on a field that does not come first (a move can make one), with its message.

/** Tests a condition row can make; "unchecked" is `checked: false`. */
const TESTS = [
  ["equals", "is"],
  ["oneOf", "is one of (values split by |)"],
  ["notEmpty", "is answered"],
  ["checked", "is ticked"],
  ["unchecked", "is not ticked"],
] as const;
const ROWS = 3;

/** A condition as rows of [field, test, value]; null when the editor cannot show it (nested all/any). */
function rowsOf(when: Condition | undefined): { match: "all" | "any"; rows: string[][] } | null {
  const parts = !when ? [] : "all" in when ? when.all : "any" in when ? when.any : [when];
  const rows = parts.map((part) =>
    "equals" in part
      ? [part.field, "equals", String(part.equals)]
      : "oneOf" in part
        ? [part.field, "oneOf", part.oneOf.join(" | ")]
        : "checked" in part
          ? [part.field, part.checked ? "checked" : "unchecked", ""]
          : "field" in part
            ? [part.field, "notEmpty", ""]
            : null,
  );
  if (rows.length > ROWS || rows.some((row) => !row)) return null;
  return { match: when && "any" in when ? "any" : "all", rows: rows as string[][] };
}

export function ConditionSettings({
  field,
  index,
  fields,
  step,
}: {
  field: FieldDef;
  index: number;
  fields: readonly FieldDef[];
  step: string;
}) {
  const p = `fields.${index}.`;
  const shown = rowsOf(field.when);
  // Earlier fields, and one a test already reads though a move put it after: the check then says so.
  const readable = fields.filter((other, at) => at < index || shown?.rows.some((row) => row[0] === other.name));
  return (
    // Closed until it holds something, so the editor stays short.
    <details className="editor-when" open={Boolean(field.when) || step !== ""}>
      <summary>Step and condition</summary>
      <Input
        id={`f${index}-step`}
        name={`${p}step`}
        label="Starts a step titled"
        hint="Empty: it stays in the step above."
        defaultValue={step}
        maxLength={120}
      />
      {shown ? (
        <>
          <label>
            Ask only when{" "}
            <select name={`${p}match`} defaultValue={shown.match}>
              <option value="all">all of these hold</option>
              <option value="any">any of these holds</option>
            </select>
          </label>
          {Array.from({ length: ROWS }, (_, k) => {
            const [name = "", test = "equals", value = ""] = shown.rows[k] ?? [];
            return (
              <div className="editor-grid" key={k}>
                <select name={`${p}when.${k}.field`} defaultValue={name} aria-label={`Test ${k + 1}: the field`}>
                  <option value="">(no test)</option>
                  {readable.map((other) => (
                    <option key={other.name} value={other.name}>
                      {other.label || other.name}
                    </option>
                  ))}
                </select>
                <select name={`${p}when.${k}.test`} defaultValue={test} aria-label={`Test ${k + 1}: how`}>
                  {TESTS.map(([key, words]) => (
                    <option key={key} value={key}>
                      {words}
                    </option>
                  ))}
                </select>
                <input name={`${p}when.${k}.value`} defaultValue={value} aria-label={`Test ${k + 1}: the value`} className="control" />
              </div>
            );
          })}
        </>
      ) : (
        <>
          {/* Kept as it came (the admin API): the editor shows flat tests only. */}
          <input type="hidden" name={`${p}whenJson`} value={JSON.stringify(field.when)} />
          <p className="small">Its condition nests all/any: change it through the admin API.</p>
        </>
      )}
    </details>
  );
}

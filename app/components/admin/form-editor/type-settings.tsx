import { UPLOAD_TYPES, type FieldDef, type FieldType } from "~/forms/schema";
import { hasSetting } from "~/lib/form-editor/field-settings";
import { Check, Input, MB, TextArea, num } from "~/components/admin/form-editor/inputs";

// The settings a field's type owns (lib/form-editor/field-settings.ts), in view: a choice shows its options,
// a number its range, a file its types and sizes, and nothing else. Posted as `fields.<i>.<key>`.

/** The editor's text for a choice's options: "value | Label" per line, or the label alone. */
export function optionsText(field: FieldDef): string {
  return (field.options ?? []).map((o) => (o.value === o.label ? o.value : `${o.value} | ${o.label}`)).join("\n");
}

export function TypeSettings({ field, type, index }: { field: FieldDef; type: FieldType; index: number }) {
  const p = `fields.${index}.`;
  const id = (key: string) => `f${index}-${key}`;
  const owns = (setting: Parameters<typeof hasSetting>[1]) => hasSetting(type, setting);
  return (
    <>
      {owns("options") ? (
        <TextArea
          id={id("options")}
          name={`${p}options`}
          label="Options"
          hint="One per line, as “value | Label” or just the label."
          defaultValue={optionsText(field)}
          rows={4}
        />
      ) : null}
      {owns("length") || owns("range") || owns("autocomplete") ? (
        <div className="editor-grid">
          {owns("length") ? (
            <>
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
            </>
          ) : null}
          {owns("range") ? (
            <>
              <Input id={id("min")} name={`${p}min`} label="Smallest number" inputMode="decimal" defaultValue={num(field.min)} />
              <Input id={id("max")} name={`${p}max`} label="Largest number" inputMode="decimal" defaultValue={num(field.max)} />
            </>
          ) : null}
          {owns("autocomplete") ? (
            <Input
              id={id("autocomplete")}
              name={`${p}autocomplete`}
              label="Autocomplete"
              defaultValue={field.autocomplete ?? ""}
              maxLength={100}
            />
          ) : null}
        </div>
      ) : null}
      {owns("pattern") ? (
        <div className="editor-grid">
          <Input
            id={id("pattern")}
            name={`${p}pattern`}
            label="Pattern"
            hint="What the whole value must match, e.g. [A-Z]{2}[0-9]{4}."
            defaultValue={field.pattern ?? ""}
            maxLength={200}
            autoCapitalize="off"
            spellCheck={false}
          />
          <Input
            id={id("patternMessage")}
            name={`${p}patternMessage`}
            label="Message when it does not match"
            defaultValue={field.patternMessage ?? ""}
            maxLength={200}
          />
        </div>
      ) : null}
      {owns("files") ? <FileSettings field={field} index={index} /> : null}
    </>
  );
}

function FileSettings({ field, index }: { field: FieldDef; index: number }) {
  const p = `fields.${index}.`;
  const id = (key: string) => `f${index}-${key}`;
  return (
    <>
      <fieldset className="editor-accept">
        <legend>File types accepted (none ticked: all of them)</legend>
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
          hint="1 when empty."
          inputMode="numeric"
          defaultValue={num(field.maxFiles)}
        />
        <Input
          id={id("maxMb")}
          name={`${p}maxMb`}
          label="Largest file (MB)"
          hint="10 when empty."
          inputMode="decimal"
          defaultValue={num(field.maxBytes, MB)}
        />
      </div>
    </>
  );
}

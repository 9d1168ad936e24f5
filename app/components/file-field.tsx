import { useEffect, useState, type ChangeEvent } from "react";
import type { FieldDef } from "~/forms/schema";
import { acceptAttribute, fileLimitsOf, formatBytes, sniffFileType, typeLabels } from "~/lib/uploads/file-types";
import { fill } from "~/lib/text/fill";
import type { FieldTexts } from "~/lib/i18n/messages/types";
import { fileLimitsText } from "~/lib/i18n/file-limits";

// A file field: once files are chosen the page checks them as the server will and says what is wrong at once;
// the server checks again and its word is final.

/** What is wrong with the chosen files, by the same rules and words as the server, or null. */
async function checkChosen(field: FieldDef, files: readonly File[], { lang, page }: FieldTexts): Promise<string | null> {
  const limits = fileLimitsOf(field);
  const label = field.label;
  if (files.length > limits.maxFiles) return fill(page.fileTooMany, { label, count: limits.maxFiles }, lang);
  for (const file of files) {
    const name = `“${file.name}”`;
    if (file.size === 0) return fill(page.fileEmpty, { name });
    if (file.size > limits.maxBytes) return fill(page.fileTooLarge, { name, size: formatBytes(limits.maxBytes) });
    const type = sniffFileType(new Uint8Array(await file.slice(0, 16).arrayBuffer()));
    if (!type || !limits.types.includes(type)) return fill(page.fileWrongType, { label, name, types: typeLabels(limits.types, lang) });
  }
  return null;
}

export function FileField({ field, error, texts }: { field: FieldDef; error?: string; texts: FieldTexts }) {
  const [checked, setChecked] = useState<{ error: string | null } | null>(null);
  // A new answer from the server is the last word until the person picks again.
  useEffect(() => setChecked(null), [error]);
  const id = `field-${field.name}`;
  const limits = fileLimitsOf(field);
  const shown = checked ? checked.error : (error ?? null);
  const describedBy = [field.hint ? `${id}-hint` : "", `${id}-limits`, shown ? `${id}-error` : ""].filter(Boolean).join(" ");
  const onChange = (event: ChangeEvent<HTMLInputElement>) => {
    const files = [...(event.currentTarget.files ?? [])];
    checkChosen(field, files, texts).then(
      (found) => setChecked({ error: found }),
      () => setChecked(null),
    );
  };
  return (
    <div className="field file">
      <label htmlFor={id}>
        {field.label}
        {field.required ? null : <span className="optional">{texts.page.optional}</span>}
      </label>
      {field.hint ? (
        <span className="hint" id={`${id}-hint`}>
          {field.hint}
        </span>
      ) : null}
      <span className="hint limits" id={`${id}-limits`}>
        {fileLimitsText(field, texts)}
      </span>
      {shown ? (
        <span className="error" id={`${id}-error`} aria-live="polite">
          {shown}
        </span>
      ) : null}
      <input
        id={id}
        className="control"
        type="file"
        name={field.name}
        accept={acceptAttribute(limits.types)}
        multiple={limits.maxFiles > 1}
        required={field.required}
        aria-invalid={shown ? true : undefined}
        aria-describedby={describedBy}
        onChange={onChange}
      />
    </div>
  );
}

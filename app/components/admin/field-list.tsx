import type { FieldDef, FieldValue, StoredFile } from "~/forms/schema";
import { formatBytes, typeLabels } from "~/lib/uploads/file-types";
import { showFieldValue } from "~/lib/forms/show-value";
import { EMPTY_VALUE } from "~/lib/text/empty-value";
import type { FieldAsking } from "~/lib/conditions/describe";

// A submission's values under the labels its form gives them, in the form's order; checkboxes read
// Yes or No. Values the form no longer defines (a field removed since) still show, under their name.
// A file field lists its files, each a download through the console (always an attachment). Given how
// the form asked (`asking`), each field says its step and the condition it was shown under, and a field
// whose condition did not hold is listed as not asked (the server kept nothing for it).

/** Where the submission's files are: its id (for the download paths), and whether their bytes were kept. */
export interface FileSource {
  submissionId: string;
  kept: boolean;
}

function FileItems({ files, source }: { files: readonly StoredFile[]; source: FileSource }) {
  if (files.length === 0) return <>{EMPTY_VALUE}</>;
  return (
    <ul className="files">
      {files.map((file) => (
        <li key={file.id}>
          {source.kept ? (
            <a href={`/admin/files/${encodeURIComponent(source.submissionId)}/${encodeURIComponent(file.id)}`} download>
              {file.name}
            </a>
          ) : (
            <span>{file.name}</span>
          )}{" "}
          <span className="file-meta">
            {typeLabels([file.type]) || file.type}, {formatBytes(file.size)}
            {source.kept ? null : ", not kept: the submission was quarantined when it arrived"}
          </span>
          <br />
          <span className="file-meta">
            SHA-256 <code className="digest">{file.sha256}</code>
          </span>
        </li>
      ))}
    </ul>
  );
}

function isFileList(value: FieldValue): value is readonly StoredFile[] {
  return Array.isArray(value);
}

/** The fields as a description list; values are text, so React escapes whatever a submitter typed. */
export function FieldList({
  fields,
  values,
  files,
  asking = {},
}: {
  fields: readonly FieldDef[];
  values: Record<string, FieldValue>;
  files?: FileSource;
  asking?: Record<string, FieldAsking>;
}) {
  const known = fields.filter((f) => f.name in values);
  const notAsked = fields.filter((f) => !(f.name in values) && asking[f.name]?.when);
  const how = (name: string, asked: boolean) => {
    const { step, when } = asking[name] ?? { step: null, when: null };
    const said = [step, when ? `${asked ? "shown because" : "only when"} ${when}` : null].filter(Boolean).join(" — ");
    return said ? <span className="asking">{said}</span> : null;
  };
  const others = Object.keys(values).filter((name) => !fields.some((f) => f.name === name));
  const cell = (field: FieldDef | undefined, value: FieldValue) => {
    if (isFileList(value)) return files ? <FileItems files={value} source={files} /> : showFieldValue(field, value);
    return field?.type === "textarea" || !field ? <pre>{showFieldValue(field, value)}</pre> : showFieldValue(field, value);
  };
  return (
    <dl>
      {known.map((field) => (
        <div key={field.name} className="contents">
          <dt>{field.label}</dt>
          <dd>
            {cell(field, values[field.name])}
            {how(field.name, true)}
          </dd>
        </div>
      ))}
      {notAsked.map((field) => (
        <div key={field.name} className="contents">
          <dt>{field.label}</dt>
          <dd>
            <em>Not asked</em> {how(field.name, false)}
          </dd>
        </div>
      ))}
      {others.map((name) => (
        <div key={name} className="contents">
          <dt>
            <code>{name}</code>
          </dt>
          <dd>{cell(undefined, values[name])}</dd>
        </div>
      ))}
    </dl>
  );
}

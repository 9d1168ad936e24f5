import { Form } from "@remix-run/react";
import type { FieldInUse } from "~/lib/form-editor/lifecycle.server";

// The form page's parts around the editor, and a form file's fields (read-only).

function List({ items }: { items: readonly string[] }) {
  return (
    <ul>
      {items.map((item) => (
        <li key={item}>{item}</li>
      ))}
    </ul>
  );
}

export function ProblemsSummary({ problems }: { problems: readonly string[] }) {
  if (problems.length === 0) return null;
  return (
    <section className="summary" aria-labelledby="problems-title">
      <h2 id="problems-title">{`${problems.length} problem${problems.length === 1 ? "" : "s"} to fix before publishing`}</h2>
      <List items={problems} />
    </section>
  );
}

export function Suggestions({ suggestions }: { suggestions: readonly string[] }) {
  if (suggestions.length === 0) return null;
  return (
    <section className="note" aria-labelledby="suggestions-title">
      <h2 id="suggestions-title">Suggestions</h2>
      <p>These are optional: the form can be published without them.</p>
      <List items={suggestions} />
    </section>
  );
}

/** The draft rendered on the server (ADR 110): as saved at first, then as typed while JavaScript runs. */
export function PreviewPanel({ title, markup, live }: { title: string; markup: string; live: boolean }) {
  return (
    <section aria-labelledby="preview-title" className="preview">
      <h2 id="preview-title">Preview</h2>
      <p className="small">
        {live
          ? "The draft as you type it, with the form's own components; nothing here is sent or saved."
          : "The saved draft with the form's own components; nothing here is sent."}
      </p>
      <div className="preview-frame" role="group" aria-label={`Preview of ${title}`} dangerouslySetInnerHTML={{ __html: markup }} />
    </section>
  );
}

export function Changes({ changes }: { changes: readonly string[] }) {
  if (changes.length === 0) return null;
  return (
    <section aria-labelledby="changes-title">
      <h2 id="changes-title">Changes since the published version</h2>
      <List items={changes} />
    </section>
  );
}

export function Versions({ versions }: { versions: readonly string[] }) {
  if (versions.length === 0) return null;
  return (
    <section aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      <List items={versions} />
    </section>
  );
}

export function ArchiveForm({ archived }: { archived: boolean }) {
  return (
    <details>
      <summary>{archived ? "Restore this form…" : "Archive this form…"}</summary>
      <p>
        {archived
          ? "Restoring lets the form take submissions again."
          : "Archiving stops new submissions (they are refused with 410 Gone). Stored submissions are kept under the form's retention and still delivered."}
      </p>
      <Form method="post">
        <button type="submit" name="intent" value={archived ? "restore" : "archive"} className="danger">
          {archived ? "Restore" : "Archive"}
        </button>
      </Form>
    </details>
  );
}

/** The fields a publish would rename or remove while they hold data, with the box that confirms it. */
export function NamesInUse({ fields }: { fields: readonly FieldInUse[] }) {
  if (fields.length === 0) return null;
  return (
    <section className="notice error" aria-labelledby="names-title">
      <h2 id="names-title">Field names in use</h2>
      <p>
        These fields hold data, or may in older submissions, and would be renamed or removed. Webhook receivers, exports and scripts find
        values by field name, so they will stop seeing them:
      </p>
      <List items={fields.map(fieldUseText)} />
      <div className="field checkbox">
        <label htmlFor="confirm-names">
          <input id="confirm-names" type="checkbox" name="confirmFieldNames" value="yes" />
          <span>I understand that receivers depend on field names; publish anyway</span>
        </label>
      </div>
    </section>
  );
}

/** What a publish found of a field it would rename or remove, in the reads' own bounds. */
function fieldUseText({ name, submissions, read, more }: FieldInUse): string {
  const plural = (n: number) => `${n.toLocaleString("en")} submission${n === 1 ? "" : "s"}`;
  if (!more) return `${name}: in ${plural(submissions)}`;
  const newest = `the newest ${plural(read)}`;
  return submissions > 0
    ? `${name}: in ${submissions.toLocaleString("en")} of ${newest}, and perhaps in older ones`
    : `${name}: in none of ${newest}, but perhaps in older ones`;
}

export function FieldTable({ fields }: { fields: readonly { name: string; type: string; label: string; required?: boolean }[] }) {
  return (
    <div className="table-scroll">
      {/* Named by the "Fields" heading above it, so a screen reader does not hear "Fields" twice. */}
      <table className="cards" aria-labelledby="fields-title">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Label</th>
            <th scope="col">Type</th>
            <th scope="col">Required</th>
          </tr>
        </thead>
        <tbody>
          {fields.map((f) => (
            <tr key={f.name}>
              <th scope="row">
                <code>{f.name}</code>
              </th>
              <td data-label="Label">{f.label}</td>
              <td data-label="Type">{f.type}</td>
              <td data-label="Required">{f.required ? "Yes" : "No"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

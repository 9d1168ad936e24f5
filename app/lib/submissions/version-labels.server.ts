import type { FieldDef } from "~/forms/schema";
import { consoleVersionNumber, type FormCatalog } from "~/lib/forms/catalog.server";
import { getVersion } from "~/lib/storage/forms.server";

// A submission is shown under the labels of the version it was validated against: a console form's
// kept version, or a form file (whose earlier versions live in git, so the current file stands in).

export interface VersionLabels {
  title: string | null;
  fields: readonly FieldDef[];
  /** Said beside the fields when the labels are not exactly the submission's version's. */
  note: string | null;
}

/** The title and fields of `formId` at `version`. D1 errors throw. */
export async function labelsAt(db: D1Database, catalog: FormCatalog, formId: string, version: string | null): Promise<VersionLabels> {
  const live = catalog.forms.get(formId);
  const number = consoleVersionNumber(version);
  if (number !== null && live?.source !== "code") {
    const row = await getVersion(db, formId, number);
    const definition = row ? parseLabels(row.definition) : null;
    if (definition) return { ...definition, note: null };
  }
  if (!live) return { title: null, fields: [], note: "Its form no longer exists: the fields are shown by their names." };
  if (version === live.version) return { title: live.form.title, fields: live.form.fields, note: null };
  return {
    title: live.form.title,
    fields: live.form.fields,
    note:
      version === null
        ? "Stored before form versions were recorded: shown with the current version's labels."
        : `Validated against version ${version}; shown with the current version's labels (${live.version}).`,
  };
}

function parseLabels(json: string): { title: string; fields: FieldDef[] } | null {
  try {
    const value = JSON.parse(json) as { title?: unknown; fields?: unknown };
    if (typeof value.title !== "string" || !Array.isArray(value.fields)) return null;
    return { title: value.title, fields: value.fields as FieldDef[] };
  } catch {
    return null;
  }
}

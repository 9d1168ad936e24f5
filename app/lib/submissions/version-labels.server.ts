import type { FieldDef, FieldGroup, FormStep } from "~/forms/schema";
import { consoleVersionNumber, type FormCatalog } from "~/lib/forms/catalog.server";
import { getVersion } from "~/lib/storage/forms.server";

// A submission is shown under the labels of the version it was validated against: a console form's
// kept version, or a form file (whose earlier versions live in git, so the current file stands in).

export interface VersionLabels {
  title: string | null;
  fields: readonly FieldDef[];
  /** The version's groups and steps, to say which step each field was on and which conditions applied. */
  groups?: readonly FieldGroup[];
  steps?: readonly FormStep[];
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
  const { title, fields, groups, steps } = live.form;
  if (version === live.version) return { title, fields, groups, steps, note: null };
  return {
    title,
    fields,
    groups,
    steps,
    note:
      version === null
        ? "Stored before form versions were recorded: shown with the current version's labels."
        : `Validated against version ${version}; shown with the current version's labels (${live.version}).`,
  };
}

function parseLabels(json: string): Omit<VersionLabels, "note"> | null {
  try {
    const value = JSON.parse(json) as { title?: unknown; fields?: unknown; groups?: unknown; steps?: unknown };
    if (typeof value.title !== "string" || !Array.isArray(value.fields)) return null;
    // A kept version passed the definition check when it was saved; groups and steps are lists or absent.
    const list = <T>(items: unknown) => (Array.isArray(items) ? (items as T[]) : undefined);
    return {
      title: value.title,
      fields: value.fields as FieldDef[],
      groups: list<FieldGroup>(value.groups),
      steps: list<FormStep>(value.steps),
    };
  } catch {
    return null;
  }
}

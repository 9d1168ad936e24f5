import { isExactOrigin } from "~/lib/http/origin";
import type { FieldDef, FormDef } from "~/forms/schema";
import { RESERVED_FIELDS } from "~/lib/submit/field-names";
import { DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_UPLOAD_BYTES } from "~/forms/schema";
import { ALLOWED_FILE_TYPES, MAX_FILES_CEILING, MAX_UPLOAD_BYTES_CEILING } from "~/lib/uploads/file-types";

const ID = /^[a-z][a-z0-9-]{0,39}$/;
const FIELD_NAME = /^[a-z][a-zA-Z0-9_]{0,39}$/;

/** Returns the forms unchanged, or throws an Error naming every problem found. */
export function checkForms(forms: readonly FormDef[]): readonly FormDef[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const form of forms) {
    if (!ID.test(form.id)) problems.push(`form id "${form.id}" must be lower-case letters, digits and dashes`);
    if (ids.has(form.id)) problems.push(`duplicate form id "${form.id}"`);
    ids.add(form.id);
    if (!(form.retentionDays > 0)) problems.push(`${form.id}: retentionDays must be positive`);
    for (const origin of form.allowedOrigins) {
      if (!isExactOrigin(origin)) problems.push(`${form.id}: allowed origin "${origin}" is not scheme://host[:port]`);
    }
    problems.push(...checkDestinations(form));
    problems.push(...checkUploads(form));
    const names = new Set<string>();
    for (const field of form.fields) {
      problems.push(...checkField(form.id, field));
      if (names.has(field.name)) problems.push(`${form.id}: duplicate field "${field.name}"`);
      names.add(field.name);
    }
  }
  if (problems.length > 0) throw new Error(`Invalid form registry:\n- ${problems.join("\n- ")}`);
  return forms;
}

/** The form definitions among the modules' exports, sorted by id. Throws if a form file exports none. */
export function collectForms(modules: Record<string, Record<string, unknown>>): FormDef[] {
  const forms: FormDef[] = [];
  for (const [file, exports] of Object.entries(modules)) {
    const found = Object.values(exports).filter(isFormDef);
    if (found.length === 0) throw new Error(`Invalid form registry:\n- ${file} exports no form (use defineForm)`);
    forms.push(...found);
  }
  return forms.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function isFormDef(value: unknown): value is FormDef {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<FormDef>;
  return typeof candidate.id === "string" && Array.isArray(candidate.fields) && Array.isArray(candidate.destinations);
}

function checkField(formId: string, field: FieldDef): string[] {
  const where = `${formId}.${field.name}`;
  const problems: string[] = [];
  if (!FIELD_NAME.test(field.name)) problems.push(`${where}: field name must be camelCase letters and digits`);
  if (RESERVED_FIELDS.has(field.name)) problems.push(`${where}: field name is reserved`);
  if (!field.label?.trim()) problems.push(`${where}: every field needs a label`);
  // Hidden fields are never shown; every other field explains itself to screen-reader users too.
  if (field.type !== "hidden" && !field.hint?.trim()) problems.push(`${where}: every visible field needs a hint`);
  if (field.pattern !== undefined) {
    try {
      new RegExp(field.pattern, "u");
    } catch {
      problems.push(`${where}: pattern ${JSON.stringify(field.pattern)} is not a valid regular expression`);
    }
  }
  if (field.type === "select" && !field.options?.length) problems.push(`${where}: a select needs options`);
  if (field.minLength !== undefined && field.maxLength !== undefined && field.minLength > field.maxLength) {
    problems.push(`${where}: minLength is above maxLength`);
  }
  problems.push(...checkFileField(where, field));
  return problems;
}

const isWhole = (n: number | undefined, max: number) => n === undefined || (Number.isInteger(n) && n >= 1 && n <= max);

/** A file field's limits, within Gatepost's ceilings; and no file settings on other fields. */
function checkFileField(where: string, field: FieldDef): string[] {
  if (field.type !== "file") {
    const stray = (["accept", "maxFiles", "maxBytes"] as const).filter((key) => field[key] !== undefined);
    return stray.map((key) => `${where}: ${key} applies to file fields only`);
  }
  const problems: string[] = [];
  for (const type of field.accept ?? []) {
    if (!ALLOWED_FILE_TYPES.includes(type)) {
      problems.push(
        `${where}: accept lists "${type}", which is not a type Gatepost recognises by its leading bytes (${ALLOWED_FILE_TYPES.join(", ")}); HTML, SVG, XML, scripts, archives and executables are never taken`,
      );
    }
  }
  if (!isWhole(field.maxFiles, MAX_FILES_CEILING))
    problems.push(`${where}: maxFiles must be a whole number from 1 to ${MAX_FILES_CEILING}`);
  if (!isWhole(field.maxBytes, MAX_UPLOAD_BYTES_CEILING)) {
    problems.push(`${where}: maxBytes must be a whole number of bytes from 1 to ${MAX_UPLOAD_BYTES_CEILING}`);
  }
  return problems;
}

/** The total per submission, within the ceiling, and large enough for any one file the fields take. */
function checkUploads(form: FormDef): string[] {
  if (!isWhole(form.maxUploadBytes, MAX_UPLOAD_BYTES_CEILING)) {
    return [`${form.id}: maxUploadBytes must be a whole number of bytes from 1 to ${MAX_UPLOAD_BYTES_CEILING}`];
  }
  const total = form.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES;
  return form.fields
    .filter((field) => field.type === "file" && (field.maxBytes ?? DEFAULT_MAX_FILE_BYTES) > total)
    .map((field) => `${form.id}.${field.name}: maxBytes is above the form's maxUploadBytes, so its largest file could never be sent`);
}

/**
 * One outbox row per kind and submission, so a kind appears once; a confirmation needs its text. (A
 * confirmation on a form with no e-mail field is simply never queued: destinations.server.ts.)
 */
function checkDestinations(form: FormDef): string[] {
  const problems: string[] = [];
  const kinds = new Set<string>();
  for (const destination of form.destinations) {
    if (kinds.has(destination.kind)) problems.push(`${form.id}: destination "${destination.kind}" is listed twice`);
    kinds.add(destination.kind);
    if (destination.kind === "confirmation") {
      if (!destination.subject.trim() || !destination.text.trim()) problems.push(`${form.id}: a confirmation needs its subject and text`);
    }
  }
  return problems;
}

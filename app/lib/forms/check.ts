import { prefillProblems } from "~/lib/forms/prefill";
import type { z } from "zod";
import { isExactOrigin } from "~/lib/http/origin";
import { isLoopbackHost } from "~/lib/http/loopback";
import { DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_UPLOAD_BYTES, type FieldDef, type FormDef } from "~/forms/schema";
import { FIELD_NAME, FormDefSchema, ID } from "~/lib/forms/definition-schema";
import { patternProblem, publishedPatternProblem } from "~/lib/forms/pattern";
import { RESERVED_FIELDS } from "~/lib/forms/field-names";
import { spamRuleProblems } from "~/lib/spam/definition";
import { conditionProblems } from "~/lib/conditions/definition";

// The one check of a form definition, from a file or the console: shape and bounds (definition-schema.ts), then
// the rules that span fields (ADR 044).

export interface CheckOptions {
  allowLoopbackHttp?: boolean;
  /** A version published before: a pattern outside today's language is still served, left out of schema.json (ADR 089). */
  published?: boolean;
}

export type DefinitionCheck = { ok: true; form: FormDef } | { ok: false; problems: string[] };

/** The shape and bounds alone, enough to keep a console draft. Never throws. */
export function checkFormShape(value: unknown): DefinitionCheck {
  const parsed = FormDefSchema.safeParse(value);
  const id = typeof (value as { id?: unknown } | null)?.id === "string" ? (value as { id: string }).id : "form";
  if (!parsed.success) return { ok: false, problems: parsed.error.issues.map((issue) => describeIssue(id, value, issue)) };
  return { ok: true, form: parsed.data as unknown as FormDef };
}

/** Checks one definition from anywhere (a file's export, a console draft, an imported JSON). Never throws. */
export function checkFormDef(value: unknown, options: CheckOptions = {}): DefinitionCheck {
  const shape = checkFormShape(value);
  if (!shape.ok) return shape;
  const form = shape.form;
  const problems = [
    ...checkForm(form, options),
    ...checkDestinations(form),
    ...checkUploads(form),
    ...checkTranslations(form),
    ...spamRuleProblems(form),
    ...conditionProblems(form),
  ];
  const names = new Set<string>();
  for (const field of form.fields) {
    problems.push(...checkField(form.id, field, options));
    if (names.has(field.name)) problems.push(`${form.id}: duplicate field "${field.name}"`);
    names.add(field.name);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, form };
}

/** What would make a definition easier to fill in (a visible field without a hint); never stops a save. */
export function suggestionsFor(form: Pick<FormDef, "fields">): string[] {
  return form.fields
    .filter((field) => field.type !== "hidden" && !field.hint?.trim())
    .map(
      (field) =>
        `${field.label.trim() || field.name}: a hint (shown under the label, read out with the field) would tell people what to enter.`,
    );
}

/** Returns the forms unchanged, or throws an Error naming every problem found. */
export function checkForms(forms: readonly FormDef[]): readonly FormDef[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const form of forms) {
    if (ids.has(form.id)) problems.push(`duplicate form id "${form.id}"`);
    ids.add(form.id);
    const check = checkFormDef(form);
    if (!check.ok) problems.push(...check.problems);
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

/** "contact.email: label: Too big…", naming a field by its name where it has one. */
function describeIssue(id: string, value: unknown, issue: z.core.$ZodIssue): string {
  const [top, index, ...rest] = issue.path;
  if (top === "fields" && typeof index === "number") {
    const field = (value as { fields?: Array<{ name?: unknown }> }).fields?.[index];
    const name = typeof field?.name === "string" && field.name ? field.name : `fields[${index}]`;
    return `${id}.${name}: ${rest.length > 0 ? `${rest.join(".")}: ` : ""}${issue.message}`;
  }
  return `${id}: ${issue.path.length > 0 ? `${issue.path.join(".")}: ` : ""}${issue.message}`;
}

function checkForm(form: FormDef, { allowLoopbackHttp = false }: CheckOptions): string[] {
  const problems: string[] = [];
  if (!ID.test(form.id)) problems.push(`form id "${form.id}" must be lower-case letters, digits and dashes, at most 32`);
  if (!(Number.isInteger(form.retentionDays) && form.retentionDays > 0 && form.retentionDays <= 3650)) {
    problems.push(`${form.id}: retentionDays must be positive (whole days, at most 3650)`);
  }
  for (const origin of form.allowedOrigins) {
    if (!isExactOrigin(origin)) problems.push(`${form.id}: allowed origin "${origin}" is not scheme://host[:port]`);
  }
  if (form.redirectUrl !== undefined && !isSafeRedirect(form.redirectUrl, allowLoopbackHttp)) {
    problems.push(`${form.id}: redirectUrl must be an https URL`);
  }
  return problems;
}

function isSafeRedirect(raw: string, allowLoopbackHttp: boolean): boolean {
  try {
    const url = new URL(raw);
    if (url.username || url.password) return false;
    return url.protocol === "https:" || (allowLoopbackHttp && url.protocol === "http:" && isLoopbackHost(url.hostname));
  } catch {
    return false;
  }
}

function checkField(formId: string, field: FieldDef, { published = false }: CheckOptions): string[] {
  const where = `${formId}.${field.name}`;
  const problems: string[] = [];
  if (!FIELD_NAME.test(field.name)) problems.push(`${where}: field name must be camelCase letters and digits`);
  if (RESERVED_FIELDS.has(field.name)) problems.push(`${where}: field name is reserved`);
  if (!field.label?.trim()) problems.push(`${where}: every field needs a label`);
  problems.push(...prefillProblems(where, field));
  if (field.pattern !== undefined) {
    const problem = published ? publishedPatternProblem(field.pattern) : patternProblem(field.pattern);
    if (problem) {
      problems.push(
        `${where}: pattern ${JSON.stringify(field.pattern.slice(0, 60))} ${problem} (patterns are written in the language RE2 and JavaScript share: docs/forms.md#patterns)`,
      );
    }
  }
  if (field.type === "select" && !field.options?.length) problems.push(`${where}: a select needs options`);
  if (field.options && new Set(field.options.map((o) => o.value)).size !== field.options.length) {
    problems.push(`${where}: option values must differ`);
  }
  if (field.minLength !== undefined && field.maxLength !== undefined && field.minLength > field.maxLength) {
    problems.push(`${where}: minLength is above maxLength`);
  }
  if (field.min !== undefined && field.max !== undefined && field.min > field.max) problems.push(`${where}: min is above max`);
  const fileOnly = field.accept !== undefined || field.maxFiles !== undefined || field.maxBytes !== undefined;
  if (fileOnly && field.type !== "file") problems.push(`${where}: accept, maxFiles and maxBytes are for file fields`);
  if (field.accept && new Set(field.accept).size !== field.accept.length) problems.push(`${where}: accept lists a type twice`);
  return problems;
}

/** The total per submission must leave room for the largest file any one field takes. */
function checkUploads(form: FormDef): string[] {
  const total = form.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES;
  return form.fields
    .filter((field) => field.type === "file" && (field.maxBytes ?? DEFAULT_MAX_FILE_BYTES) > total)
    .map((field) => `${form.id}.${field.name}: maxBytes is above the form's maxUploadBytes, so its largest file could never be sent`);
}

/** One outbox row per kind and submission, so a kind appears once; a confirmation needs its text. */
function checkDestinations(form: FormDef): string[] {
  const problems: string[] = [];
  const kinds = new Set<string>();
  for (const destination of form.destinations) {
    if (kinds.has(destination.kind)) problems.push(`${form.id}: destination "${destination.kind}" is listed twice`);
    kinds.add(destination.kind);
    const texts = Object.entries(destination).filter(([key, value]) => key !== "kind" && typeof value === "string");
    if (texts.some(([, value]) => !String(value).trim())) {
      problems.push(`${form.id}: a ${destination.kind} needs its ${texts.map(([key]) => key).join(" and ")}`);
    }
  }
  return problems;
}

/** Each language once, translations only for the others offered; one for a removed field is ignored. */
function checkTranslations(form: FormDef): string[] {
  const problems: string[] = [];
  const languages = form.languages ?? ["en"];
  if (new Set(languages).size !== languages.length) problems.push(`${form.id}: languages lists a language twice`);
  for (const [lang, translation] of Object.entries(form.translations ?? {})) {
    if (!translation) continue;
    if (!languages.includes(lang as never)) problems.push(`${form.id}: translations.${lang} is for a language the form does not offer`);
    else if (lang === languages[0])
      problems.push(`${form.id}: translations.${lang} is the form's own language: write those texts in the form itself`);
  }
  return problems;
}

import { DEFAULT_CAP, type FieldDef, type FieldValue, type FormDef } from "~/forms/schema";
import { matchesPattern } from "~/lib/forms/pattern";
import { conditionHolds, conditionOf } from "~/lib/conditions/evaluate";
import { fill } from "~/lib/text/fill";
import { isEmailAddress, WEB_ADDRESS } from "~/lib/forms/value-formats";
import { fileLimitsOf, formatBytes, sniffFileType, typeLabels, uploadLimitOf } from "~/lib/uploads/file-types";
import { en } from "~/lib/i18n/messages/en";
import type { PageTexts, ValidationTexts } from "~/lib/i18n/messages/types";
import type { Lang } from "~/lib/text/languages";

// Server validation driven by the form's schema; client-safe, so the page shows the same constraints as HTML
// attributes. Unknown fields are dropped, fields whose condition does
// not hold are dropped too (never required, never kept), every field has a length cap, files are checked by their leading bytes.

export interface ValidationLanguage {
  lang: Lang;
  page: PageTexts;
  validation: ValidationTexts;
}
const ENGLISH: ValidationLanguage = { lang: "en", page: en.page, validation: en.validation };

export type FieldErrors = Record<string, string>;

export interface ReceivedFile {
  field: string;
  name: string;
  bytes: Uint8Array<ArrayBuffer>;
}

export interface AcceptedFile extends ReceivedFile {
  type: string;
}

export type ValidationResult =
  /** `values` has every field asked (a file field's as an empty list: its files are in `files`). */
  | { ok: true; values: Record<string, FieldValue>; files: AcceptedFile[] }
  | { ok: false; errors: FieldErrors; values: Record<string, string> };

/** Validates input and files against the form. Never throws, whatever shape the input has. */
export function validateFields(
  form: FormDef,
  input: Record<string, unknown>,
  received: readonly ReceivedFile[] = [],
  texts: ValidationLanguage = ENGLISH,
): ValidationResult {
  const v = texts.validation;
  const errors: FieldErrors = {};
  const values: Record<string, FieldValue> = {};
  const echo: Record<string, string> = {};
  const files: AcceptedFile[] = [];
  // What conditions read: the kept values of the fields asked so far (app/lib/conditions/).
  const kept: Record<string, unknown> = {};
  for (const field of form.fields) {
    const raw = Object.hasOwn(input, field.name) ? input[field.name] : undefined;
    const condition = conditionOf(form, field);
    if (condition && !conditionHolds(condition, kept)) {
      // Not asked: neither required nor kept, and whatever was sent for it is dropped.
      echo[field.name] = field.type === "file" ? "" : (toText(raw) ?? "");
      continue;
    }
    if (field.type === "file") {
      // A file cannot be shown again: the person picks it anew.
      echo[field.name] = "";
      const result = checkFiles(field, raw, received, texts);
      if ("error" in result) errors[field.name] = result.error;
      else {
        files.push(...result.files);
        // An empty list until the files are stored and described (withFiles, uploads.server.ts).
        values[field.name] = [];
        kept[field.name] = result.files;
      }
      continue;
    }
    const text = toText(raw);
    echo[field.name] = text ?? "";
    if (text === null) {
      errors[field.name] = fill(v.single, { label: field.label });
      continue;
    }
    const result = checkValue(field, text, texts);
    if (typeof result === "object" && result !== null && "error" in result) errors[field.name] = result.error;
    else values[field.name] = kept[field.name] = result as FieldValue;
  }
  const total = files.reduce((sum, file) => sum + file.bytes.byteLength, 0);
  const first = form.fields.find((field) => field.type === "file");
  if (first && total > uploadLimitOf(form) && !errors[first.name]) {
    errors[first.name] = fill(v.uploadTotal, { size: formatBytes(uploadLimitOf(form)) });
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors, values: echo };
  return { ok: true, values, files };
}

/** A name as an error quotes it: short, so a long one cannot push the message off the screen. */
function quoted(name: string): string {
  const chars = [...name];
  return `“${chars.length > 40 ? `${chars.slice(0, 39).join("")}…` : name}”`;
}

function checkFiles(
  field: FieldDef,
  raw: unknown,
  received: readonly ReceivedFile[],
  { lang, page, validation }: ValidationLanguage,
): { files: AcceptedFile[] } | { error: string } {
  const limits = fileLimitsOf(field);
  const label = field.label;
  if (raw !== undefined && raw !== "") return { error: fill(validation.asFile, { label }) };
  const mine = received.filter((file) => file.field === field.name);
  if (mine.length === 0) return field.required ? { error: fill(validation.chooseFile, { label }) } : { files: [] };
  if (mine.length > limits.maxFiles) return { error: fill(page.fileTooMany, { label, count: limits.maxFiles }, lang) };
  const files: AcceptedFile[] = [];
  for (const file of mine) {
    const size = file.bytes.byteLength;
    const name = quoted(file.name);
    if (size === 0) return { error: fill(page.fileEmpty, { name }) };
    if (size > limits.maxBytes) return { error: fill(page.fileTooLarge, { name, size: formatBytes(limits.maxBytes) }) };
    const type = sniffFileType(file.bytes);
    if (!type || !limits.types.includes(type)) {
      return { error: fill(page.fileWrongType, { label, name, types: typeLabels(limits.types, lang) }) };
    }
    files.push({ ...file, type });
  }
  return { files };
}

function toText(raw: unknown): string | null {
  if (raw === undefined || raw === null) return "";
  if (typeof raw === "string") return raw;
  if (typeof raw === "number" || typeof raw === "boolean") return String(raw);
  return null;
}

function checkValue(field: FieldDef, rawText: string, { lang, validation: v }: ValidationLanguage): FieldValue | { error: string } {
  const label = field.label;
  const text = field.type === "textarea" ? rawText.replace(/\r\n/g, "\n") : rawText.trim();
  const cap = field.maxLength ?? DEFAULT_CAP[field.type];
  if (field.type === "checkbox") {
    const checked = ["on", "true", "1", "yes"].includes(text.toLowerCase());
    if (field.required && !checked) return { error: fill(v.ticked, { label }) };
    return checked;
  }
  if (text.trim() === "") {
    return field.required ? { error: fill(v.required, { label }) } : null;
  }
  if ([...text].length > cap) return { error: fill(v.tooLong, { label, count: cap }, lang) };
  if (field.minLength !== undefined && [...text.trim()].length < field.minLength) {
    return { error: fill(v.tooShort, { label, count: field.minLength }, lang) };
  }
  // RE2, never RegExp: a pattern costs time linear in the value, whatever it is (ADR 044).
  if (field.pattern !== undefined && !matchesPattern(field.pattern, text)) {
    return { error: field.patternMessage ?? fill(v.format, { label }) };
  }
  switch (field.type) {
    case "email":
      return isEmailAddress(text) ? text : { error: fill(v.email, { label }) };
    case "url":
      return isWebUrl(text) ? text : { error: fill(v.url, { label }) };
    case "select":
      return field.options?.some((o) => o.value === text) ? text : { error: fill(v.option, { label }) };
    case "number":
      return checkNumber(field, text, v);
    default:
      return text;
  }
}

function checkNumber(field: FieldDef, text: string, v: ValidationLanguage["validation"]): number | { error: string } {
  const n = Number(text);
  const label = field.label;
  if (!/^-?\d+(\.\d+)?$/.test(text) || !Number.isFinite(n)) return { error: fill(v.number, { label }) };
  if (field.min !== undefined && n < field.min) return { error: fill(v.min, { label, min: field.min }) };
  if (field.max !== undefined && n > field.max) return { error: fill(v.max, { label, max: field.max }) };
  return n;
}

function isWebUrl(text: string): boolean {
  if (!WEB_ADDRESS.test(text)) return false;
  try {
    const url = new URL(text);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}

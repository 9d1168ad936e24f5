import { DEFAULT_CAP, type FieldDef, type FieldValue, type FormDef } from "~/forms/schema";
import { matchesPattern } from "~/lib/forms/pattern";
import { countOf } from "~/lib/text/count";

// Server validation driven by the form's schema. Client-safe, so the page can show the same
// constraints as HTML attributes. Unknown fields are dropped; every field has a length cap.

export type FieldErrors = Record<string, string>;

export type ValidationResult =
  { ok: true; values: Record<string, FieldValue> } | { ok: false; errors: FieldErrors; values: Record<string, string> };

const EMAIL = /^[^\s@"<>()[\]\\,;:]{1,64}@(?=.{1,253}$)[^\s@"<>()[\]\\,;:.]+(\.[^\s@"<>()[\]\\,;:.]+)+$/u;

/** Validates input against the form. Never throws, whatever shape the input has. */
export function validateFields(form: FormDef, input: Record<string, unknown>): ValidationResult {
  const errors: FieldErrors = {};
  const values: Record<string, FieldValue> = {};
  const echo: Record<string, string> = {};
  for (const field of form.fields) {
    const raw = Object.hasOwn(input, field.name) ? input[field.name] : undefined;
    if (field.type === "file") {
      // Files arrive only through an upload (docs/forms.md); as a text field's value they are refused.
      if (raw !== undefined && raw !== "") errors[field.name] = `${field.label} takes files, not text.`;
      else if (field.required) errors[field.name] = `${field.label} is required.`;
      else values[field.name] = [];
      echo[field.name] = "";
      continue;
    }
    const text = toText(raw);
    echo[field.name] = text ?? "";
    if (text === null) {
      errors[field.name] = `${field.label} must be a single value.`;
      continue;
    }
    const result = checkValue(field, text);
    if (typeof result === "object" && result !== null && "error" in result) errors[field.name] = result.error;
    else values[field.name] = result as FieldValue;
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors, values: echo };
  return { ok: true, values };
}

function toText(raw: unknown): string | null {
  if (raw === undefined || raw === null) return "";
  if (typeof raw === "string") return raw;
  if (typeof raw === "number" || typeof raw === "boolean") return String(raw);
  return null;
}

function checkValue(field: FieldDef, rawText: string): FieldValue | { error: string } {
  const text = field.type === "textarea" ? rawText.replace(/\r\n/g, "\n") : rawText.trim();
  const cap = field.maxLength ?? DEFAULT_CAP[field.type];
  if (field.type === "checkbox") {
    const checked = ["on", "true", "1", "yes"].includes(text.toLowerCase());
    if (field.required && !checked) return { error: `${field.label} must be ticked to continue.` };
    return checked;
  }
  if (text.trim() === "") {
    return field.required ? { error: `${field.label} is required.` } : null;
  }
  if ([...text].length > cap) return { error: `${field.label} must be at most ${countOf(cap, "character", "characters")}.` };
  if (field.minLength !== undefined && [...text.trim()].length < field.minLength) {
    return { error: `${field.label} must be at least ${countOf(field.minLength, "character", "characters")}.` };
  }
  // RE2, never RegExp: a pattern costs time linear in the value, whatever it is (ADR 044).
  if (field.pattern !== undefined && !matchesPattern(field.pattern, text)) {
    return { error: field.patternMessage ?? `${field.label} is not in the expected format.` };
  }
  switch (field.type) {
    case "email":
      return EMAIL.test(text) ? text : { error: `${field.label} must be a valid e-mail address, like name@example.com.` };
    case "url":
      return isWebUrl(text) ? text : { error: `${field.label} must be a web address starting with https://.` };
    case "select":
      return field.options?.some((o) => o.value === text) ? text : { error: `Choose one of the listed options for ${field.label}.` };
    case "number":
      return checkNumber(field, text);
    default:
      return text;
  }
}

function checkNumber(field: FieldDef, text: string): number | { error: string } {
  const n = Number(text);
  if (!/^-?\d+(\.\d+)?$/.test(text) || !Number.isFinite(n)) return { error: `${field.label} must be a number.` };
  if (field.min !== undefined && n < field.min) return { error: `${field.label} must be at least ${field.min}.` };
  if (field.max !== undefined && n > field.max) return { error: `${field.label} must be at most ${field.max}.` };
  return n;
}

function isWebUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}

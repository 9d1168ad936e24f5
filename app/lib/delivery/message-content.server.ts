import type { FieldValue, FormDef } from "~/forms/schema";
import type { StoredSubmission } from "~/lib/storage/submissions.server";

// What a person reads in a notification, before any escaping: each kind escapes it for where it goes.

export interface MessageRow {
  label: string;
  value: string;
}

export interface MessageContent {
  formId: string;
  formTitle: string;
  submissionId: string;
  receivedAt: string;
  /** The submission in the admin console, when PUBLIC_URL is set; else null. */
  link: string | null;
  rows: MessageRow[];
}

/** The ellipsis every cut value ends with, so a reader sees something was left out. */
export const ELLIPSIS = "…";

/** Null without PUBLIC_URL. */
export function submissionLink(publicUrl: string | null, submissionId: string): string | null {
  return publicUrl ? `${publicUrl}/admin/submissions/${encodeURIComponent(submissionId)}` : null;
}

/** The rows of `submission` in `form`'s field order, labelled; fields the form no longer has come last. */
export function describeSubmission(form: FormDef, submission: StoredSubmission, publicUrl: string | null): MessageContent {
  const fields = submission.fields as Readonly<Record<string, FieldValue>>;
  const known = new Set(form.fields.map((field) => field.name));
  const rows: MessageRow[] = form.fields.map((field) => {
    const value = fields[field.name] ?? null;
    const option = field.options?.find((o) => o.value === value);
    return { label: field.label, value: option ? option.label : formatValue(value) };
  });
  for (const [name, value] of Object.entries(fields)) {
    if (!known.has(name)) rows.push({ label: name, value: formatValue(value) });
  }
  return {
    formId: form.id,
    formTitle: form.title,
    submissionId: submission.id,
    receivedAt: submission.receivedAt,
    link: submissionLink(publicUrl, submission.id),
    rows,
  };
}

function formatValue(value: FieldValue | undefined): string {
  if (value === null || value === undefined || value === "") return "";
  if (typeof value === "boolean") return value ? "Yes" : "No";
  return String(value);
}

/** `text` escaped and cut to `max` code units, ending in the ellipsis; never inside a code point or an escape. */
export function truncateEscaped(text: string, max: number, escape: (s: string) => string = (s) => s): { text: string; cut: boolean } {
  const whole = escape(text);
  if (whole.length <= max) return { text: whole, cut: false };
  const budget = max - ELLIPSIS.length;
  let out = "";
  for (const char of text) {
    const next = escape(char);
    if (out.length + next.length > budget) break;
    out += next;
  }
  return { text: out + ELLIPSIS, cut: true };
}

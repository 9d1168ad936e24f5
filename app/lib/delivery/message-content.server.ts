import type { FieldValue, FormDef } from "~/forms/schema";
import type { StoredSubmission } from "~/lib/storage/submissions.server";

// What a person reads in a notification (e-mail, Slack, Discord): the form's title, each field in the
// form's order with its label, the submission's reference and a link to it in the console. Each kind
// formats and escapes this for where it goes; nothing here is escaped yet.

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

/** The admin console's page for one submission, or null without PUBLIC_URL. */
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

/**
 * `text` cut to at most `max` units of `measure` (code units by default) after `escape`, ending in
 * the ellipsis when cut. Cuts between code points and never inside an escape sequence.
 */
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

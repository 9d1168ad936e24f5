import type { FieldValue, FormDef } from "~/forms/schema";
import type { StoredSubmission } from "~/lib/storage/submissions.server";
import type { LinkedFile } from "~/lib/sending/linked-files.server";
import { formatBytes } from "~/lib/uploads/file-types";
import { filesOf } from "~/lib/storage/file-objects.server";
import { orEmptyMark } from "~/lib/text/empty-value";

// What a person reads in a notification, before any escaping: each kind escapes it for where it goes.

export interface MessageRow {
  label: string;
  value: string;
}

export interface MessageFile {
  label: string;
  name: string;
  size: string;
  url: string | null;
  expiresAt: string | null;
}

export interface MessageContent {
  formId: string;
  formTitle: string;
  submissionId: string;
  receivedAt: string;
  link: string | null;
  rows: MessageRow[];
  files: MessageFile[];
}

/** The ellipsis every cut value ends with, so a reader sees something was left out. */
export const ELLIPSIS = "…";

/** Null without PUBLIC_URL. */
export function submissionLink(publicUrl: string | null, submissionId: string): string | null {
  return publicUrl ? `${publicUrl}/admin/submissions/${encodeURIComponent(submissionId)}` : null;
}

/** The submission's rows in the form's field order, labelled, fields the form no longer has last; files with their links. */
export function describeSubmission(
  form: FormDef,
  submission: StoredSubmission,
  publicUrl: string | null,
  files: readonly LinkedFile[] = [],
): MessageContent {
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
    files: files.map(({ label, file, link }) => ({
      label,
      name: file.name,
      size: formatBytes(file.size),
      url: link?.url ?? null,
      expiresAt: link?.expiresAt ?? null,
    })),
  };
}

function formatValue(value: FieldValue | undefined): string {
  if (typeof value === "boolean") return value ? "Yes" : "No";
  if (value === null || typeof value !== "object") return orEmptyMark(value);
  const files = filesOf(value).map((file) => `${file.name} (${formatBytes(file.size)})`);
  return orEmptyMark(files.join("\n"));
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

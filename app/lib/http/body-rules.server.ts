import type { ErrorCode } from "~/lib/http/errors";

// What every submission body is held to: caps, refusals, well-formed text (refused, not repaired), linear work.

export const MAX_BODY_BYTES = 64 * 1024;
/** Fields in one body, each repeat of a name counting; no form needs more, and it bounds all later work. */
export const MAX_FIELDS = 100;

export type BodyCode = Extract<
  ErrorCode,
  | "body_too_large"
  | "malformed_body"
  | "unsupported_media_type"
  | "too_many_fields"
  | "invalid_text"
  | "file_not_accepted"
  | "file_too_large"
  | "upload_too_large"
>;

/** What a form takes in files (uploadLimitsOf); null: no files. */
export interface UploadLimits {
  maxBytes: ReadonlyMap<string, number>;
  maxUploadBytes: number;
  /** Every field's maxFiles together, so empty parts cannot pile up. */
  maxFileParts: number;
}

export interface UploadedPart {
  field: string;
  name: string;
  bytes: Uint8Array<ArrayBuffer>;
}

export type BodyResult =
  { ok: true; fields: Record<string, unknown>; files: UploadedPart[] } | { ok: false; code: BodyCode; field?: string };

type Kind = "urlencoded" | "multipart" | "json";

export class BodyRefusal extends Error {
  constructor(
    readonly code: BodyCode,
    readonly field?: string,
  ) {
    super(code);
  }
}

/** 64 KiB, plus the form's total for files in a multipart post to a form that takes them. */
export function bodyLimitOf(request: Request, uploads: UploadLimits | null = null): number {
  const files = uploads && kindOf(request.headers.get("content-type") ?? "") === "multipart" ? uploads.maxUploadBytes : 0;
  return MAX_BODY_BYTES + files;
}

export function tooLarge(limit: number): BodyCode {
  return limit > MAX_BODY_BYTES ? "upload_too_large" : "body_too_large";
}

/** The refusal when Content-Length alone is over the limit (nothing read), else null. */
export function declaresTooLarge(request: Request, uploads: UploadLimits | null = null): BodyCode | null {
  const limit = bodyLimitOf(request, uploads);
  return Number(request.headers.get("content-length") ?? "0") > limit ? tooLarge(limit) : null;
}
export function kindOf(contentType: string): Kind | null {
  const type = contentType.split(";")[0].trim().toLowerCase();
  if (type === "application/x-www-form-urlencoded") return "urlencoded";
  if (type === "multipart/form-data") return "multipart";
  if (type === "application/json" || type.endsWith("+json")) return "json";
  return null;
}
// C0 and C1 controls and DEL, except tab, newline and carriage return (CR is normalised below).
// eslint-disable-next-line no-control-regex -- matching control characters is this pattern's job
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /\p{Cs}/u;

/** Text as it may be stored: well-formed, no control characters but tab and newline, CR and CRLF as LF. */
export function wellFormedText(text: string): string {
  if (LONE_SURROGATE.test(text) || CONTROL.test(text)) throw new BodyRefusal("invalid_text");
  return text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
}
export function counted<T>(entries: T[], entry: T): void {
  if (entries.length >= MAX_FIELDS) throw new BodyRefusal("too_many_fields");
  entries.push(entry);
}
/** Repeated names become arrays (validation refuses them), one push per repeat so it stays linear. */
export function collect(entries: Iterable<[string, unknown]>): Record<string, unknown> {
  const fields: Record<string, unknown> = Object.create(null);
  const repeated = new Map<string, unknown[]>();
  for (const [name, value] of entries) {
    const list = repeated.get(name);
    if (list) list.push(value);
    else if (name in fields) {
      const first = [fields[name], value];
      repeated.set(name, first);
      fields[name] = first;
    } else fields[name] = value;
  }
  return fields;
}

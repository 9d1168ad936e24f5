import type { ErrorCode } from "~/lib/http/errors";
import { readMessageUpTo } from "~/lib/http/read-stream.server";

// Reads a submission body with a hard size cap before anything parses it, so an oversized or
// malformed request is refused cheaply and never reaches validation, the provider or D1.

export const MAX_BODY_BYTES = 64 * 1024;

export type BodyResult =
  | { ok: true; fields: Record<string, unknown> }
  | { ok: false; code: Extract<ErrorCode, "body_too_large" | "malformed_body" | "unsupported_media_type"> };

/** Reads and parses the body. Never throws; refusals come back as catalogue codes. */
export async function readBody(request: Request): Promise<BodyResult> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) return { ok: false, code: "body_too_large" };
  const bytes = await readCapped(request);
  if (bytes === "too_large") return { ok: false, code: "body_too_large" };
  if (bytes === null) return { ok: false, code: "malformed_body" };
  const type = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  try {
    if (type === "application/x-www-form-urlencoded") return parseUrlEncoded(bytes);
    if (type === "multipart/form-data") return await parseMultipart(bytes, request.headers.get("content-type")!);
    if (type === "application/json" || type.endsWith("+json")) return parseJson(bytes);
  } catch {
    return { ok: false, code: "malformed_body" };
  }
  return { ok: false, code: "unsupported_media_type" };
}

async function readCapped(request: Request): Promise<Uint8Array<ArrayBuffer> | "too_large" | null> {
  const read = await readMessageUpTo(request, MAX_BODY_BYTES);
  if (!read) return null;
  return read.overflow ? "too_large" : read.bytes;
}

function decode(bytes: Uint8Array): string {
  // fatal: invalid UTF-8 is a malformed body, not text with replacement characters stored forever.
  return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
}

function parseUrlEncoded(bytes: Uint8Array): BodyResult {
  const params = new URLSearchParams(decode(bytes));
  return { ok: true, fields: collect(params.entries()) };
}

async function parseMultipart(bytes: Uint8Array<ArrayBuffer>, contentType: string): Promise<BodyResult> {
  // Gatepost takes no files, so a whole multipart body must be valid UTF-8 text too.
  decode(bytes);
  const form = await new Response(bytes, { headers: { "content-type": contentType } }).formData();
  const entries: [string, unknown][] = [];
  for (const [key, value] of form.entries()) {
    // Files are not a field type; marking them as objects makes validation refuse them by name.
    entries.push([key, typeof value === "string" ? value : { file: true }]);
  }
  return { ok: true, fields: collect(entries) };
}

function parseJson(bytes: Uint8Array): BodyResult {
  const parsed: unknown = JSON.parse(decode(bytes));
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return { ok: false, code: "malformed_body" };
  }
  return { ok: true, fields: { ...(parsed as Record<string, unknown>) } };
}

/** Repeated keys become arrays, which validation refuses as "must be a single value". */
function collect(entries: Iterable<[string, unknown]>): Record<string, unknown> {
  const fields: Record<string, unknown> = Object.create(null);
  for (const [key, value] of entries) {
    const existing = fields[key];
    if (existing === undefined) fields[key] = value;
    else fields[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return fields;
}

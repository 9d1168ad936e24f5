import type { ErrorCode } from "~/lib/http/errors";
import { readMessageUpTo } from "~/lib/http/read-stream.server";

// Reads a submission body under a hard cap before anything parses it, in work linear in its size and
// bounded by MAX_FIELDS; text that is not well-formed UTF-8 without control characters is refused, not
// repaired. URL-encoded bodies are split here: URLSearchParams turns `%FF` into U+FFFD silently.

export const MAX_BODY_BYTES = 64 * 1024;
/** Fields in one body, each repeat of a name counting; no form needs more, and it bounds all later work. */
export const MAX_FIELDS = 100;

export type BodyCode = Extract<
  ErrorCode,
  "body_too_large" | "malformed_body" | "unsupported_media_type" | "too_many_fields" | "invalid_text" | "file_not_accepted"
>;

export type BodyResult = { ok: true; fields: Record<string, unknown> } | { ok: false; code: BodyCode };

type Kind = "urlencoded" | "multipart" | "json";

class BodyRefusal extends Error {
  constructor(readonly code: BodyCode) {
    super(code);
  }
}

/** True when the Content-Length header alone already says the body is over the cap (no read needed). */
export function declaresTooLarge(request: Request): boolean {
  return Number(request.headers.get("content-length") ?? "0") > MAX_BODY_BYTES;
}

/** Reads and parses the body. Never throws; refusals come back as catalogue codes. */
export async function readBody(request: Request): Promise<BodyResult> {
  if (declaresTooLarge(request)) return { ok: false, code: "body_too_large" };
  const contentType = request.headers.get("content-type") ?? "";
  const kind = kindOf(contentType);
  if (!kind) return { ok: false, code: "unsupported_media_type" };
  const read = await readMessageUpTo(request, MAX_BODY_BYTES);
  if (!read) return { ok: false, code: "malformed_body" };
  if (read.overflow) return { ok: false, code: "body_too_large" };
  try {
    if (kind === "urlencoded") return { ok: true, fields: collect(urlEncodedEntries(decode(read.bytes))) };
    if (kind === "multipart") return { ok: true, fields: collect(await multipartEntries(read.bytes, contentType)) };
    return { ok: true, fields: collect(jsonEntries(decode(read.bytes))) };
  } catch (error) {
    return { ok: false, code: error instanceof BodyRefusal ? error.code : "malformed_body" };
  }
}

function kindOf(contentType: string): Kind | null {
  const type = contentType.split(";")[0].trim().toLowerCase();
  if (type === "application/x-www-form-urlencoded") return "urlencoded";
  if (type === "multipart/form-data") return "multipart";
  if (type === "application/json" || type.endsWith("+json")) return "json";
  return null;
}

function decode(bytes: Uint8Array): string {
  try {
    // fatal: invalid UTF-8 is refused, not turned into replacement characters stored forever.
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new BodyRefusal("invalid_text");
  }
}

// C0 and C1 controls and DEL, except tab, newline and carriage return (CR is normalised below).
// eslint-disable-next-line no-control-regex -- matching control characters is this pattern's job
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
// In a /u pattern a paired surrogate is one code point, so this matches only a lone half.
const LONE_SURROGATE = /\p{Cs}/u;

/** Text as it may be stored: well-formed, no control characters but tab and newline, CR and CRLF as LF. */
export function wellFormedText(text: string): string {
  if (LONE_SURROGATE.test(text) || CONTROL.test(text)) throw new BodyRefusal("invalid_text");
  return text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
}

function counted<T>(entries: T[], entry: T): void {
  if (entries.length >= MAX_FIELDS) throw new BodyRefusal("too_many_fields");
  entries.push(entry);
}

function urlEncodedEntries(text: string): [string, unknown][] {
  const entries: [string, unknown][] = [];
  let start = 0;
  while (start <= text.length) {
    const amp = text.indexOf("&", start);
    const end = amp === -1 ? text.length : amp;
    if (end > start) {
      const pair = text.slice(start, end);
      const eq = pair.indexOf("=");
      const name = eq === -1 ? pair : pair.slice(0, eq);
      const value = eq === -1 ? "" : pair.slice(eq + 1);
      counted(entries, [wellFormedText(decodeComponent(name)), wellFormedText(decodeComponent(value))]);
    }
    start = end + 1;
  }
  return entries;
}

function decodeComponent(raw: string): string {
  const spaced = raw.includes("+") ? raw.replaceAll("+", " ") : raw;
  if (!spaced.includes("%")) return spaced;
  // A bare % stays literal, as URLSearchParams keeps it (curl -d 'note=50% off'); a %XX sequence that
  // is not UTF-8 (%FF, an encoded surrogate) makes decodeURIComponent throw.
  try {
    return decodeURIComponent(spaced.replace(/%(?![0-9a-fA-F]{2})/g, "%25"));
  } catch {
    throw new BodyRefusal("invalid_text");
  }
}

async function multipartEntries(bytes: Uint8Array<ArrayBuffer>, contentType: string): Promise<[string, unknown][]> {
  const form = await new Response(bytes, { headers: { "content-type": contentType } }).formData();
  const entries: [string, unknown][] = [];
  for (const [name, value] of form.entries()) {
    // Uploads are not a feature: a file is refused, not silently dropped.
    if (typeof value !== "string") throw new BodyRefusal("file_not_accepted");
    counted(entries, [wellFormedText(name), wellFormedText(value)]);
  }
  // formData() decodes text leniently; without files the whole body must be valid UTF-8 too.
  decode(bytes);
  return entries;
}

function jsonEntries(text: string): [string, unknown][] {
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new BodyRefusal("malformed_body");
  const entries: [string, unknown][] = [];
  // Nested values are never walked: validation refuses any value that is not a single scalar.
  for (const name in parsed) {
    const value = (parsed as Record<string, unknown>)[name];
    counted(entries, [wellFormedText(name), typeof value === "string" ? wellFormedText(value) : value]);
  }
  return entries;
}

/** Repeated names become arrays (validation refuses them), one push per repeat so it stays linear. */
function collect(entries: Iterable<[string, unknown]>): Record<string, unknown> {
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

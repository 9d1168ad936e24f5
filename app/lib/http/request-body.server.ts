import {
  getMultipartBoundary,
  MaxFileSizeExceededError,
  MaxPartsExceededError,
  MaxTotalSizeExceededError,
  MultipartParser,
  type MultipartPart,
} from "@remix-run/multipart-parser";
import type { ErrorCode } from "~/lib/http/errors";
import { readMessageUpTo } from "~/lib/http/read-stream.server";

// Reads a submission body under a hard cap before anything parses it, in work linear in its size and
// bounded by MAX_FIELDS; text that is not well-formed UTF-8 without control characters is refused, not
// repaired. URL-encoded bodies are split here: URLSearchParams turns `%FF` into U+FFFD silently.
// Multipart goes through @remix-run/multipart-parser, a form's file limits checked as the bytes
// arrive and the rest left unread after a refusal (docs/decisions/050).

export const MAX_BODY_BYTES = 64 * 1024;
/** Fields in one body, each repeat of a name counting; no form needs more, and it bounds all later work. */
export const MAX_FIELDS = 100;

const MAX_PART_HEADER_BYTES = 4096;

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
  /** Per file, by field name. */
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
  | { ok: true; fields: Record<string, unknown>; files: UploadedPart[] }
  /** `field`: the file field a file_too_large refusal is about, when it is known. */
  | { ok: false; code: BodyCode; field?: string };

type Kind = "urlencoded" | "multipart" | "json";

class BodyRefusal extends Error {
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

function tooLarge(limit: number): BodyCode {
  return limit > MAX_BODY_BYTES ? "upload_too_large" : "body_too_large";
}

/** The refusal when Content-Length alone is over the limit (nothing read), else null. */
export function declaresTooLarge(request: Request, uploads: UploadLimits | null = null): BodyCode | null {
  const limit = bodyLimitOf(request, uploads);
  return Number(request.headers.get("content-length") ?? "0") > limit ? tooLarge(limit) : null;
}

/** Reads and parses the body; files only for the fields `uploads` names. Never throws; refusals come back as catalogue codes. */
export async function readBody(request: Request, uploads: UploadLimits | null = null): Promise<BodyResult> {
  const declared = declaresTooLarge(request, uploads);
  if (declared) return { ok: false, code: declared };
  const contentType = request.headers.get("content-type") ?? "";
  const kind = kindOf(contentType);
  if (!kind) return { ok: false, code: "unsupported_media_type" };
  try {
    if (kind === "multipart") return await readMultipart(request, contentType, uploads);
    const read = await readMessageUpTo(request, MAX_BODY_BYTES);
    if (!read) return { ok: false, code: "malformed_body" };
    if (read.overflow) return { ok: false, code: "body_too_large" };
    if (kind === "urlencoded") return { ok: true, fields: collect(urlEncodedEntries(decode(read.bytes))), files: [] };
    return { ok: true, fields: collect(jsonEntries(decode(read.bytes))), files: [] };
  } catch (error) {
    if (error instanceof BodyRefusal) return { ok: false, code: error.code, ...(error.field ? { field: error.field } : {}) };
    return { ok: false, code: "malformed_body" };
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

/** The body's chunks, read once: in one go within 64 KiB, else streamed; stopping cancels the rest. */
async function* bodyChunks(request: Request, limit: number): AsyncGenerator<Uint8Array> {
  if (limit <= MAX_BODY_BYTES) {
    const read = await readMessageUpTo(request, limit);
    if (!read) throw new BodyRefusal("malformed_body");
    if (read.overflow) throw new BodyRefusal("body_too_large");
    yield read.bytes;
    return;
  }
  if (!request.body) return;
  const reader = chunkReader(request.body);
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch {
        throw new BodyRefusal("malformed_body");
      }
      // A BYOB read may end the stream with its last bytes.
      if (chunk.value && chunk.value.byteLength > 0) yield chunk.value;
      if (chunk.done) return;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/**
 * Bytes taken per read of a streamed body. workerd hands a default reader a request body 4 KiB at a
 * time at most (263 reads for 1 MiB, each a trip through the event loop, the generator and the parser);
 * a BYOB reader's readAtLeast takes 64 KiB a trip. In the bench (Miniflare) that took a 1 MiB upload
 * from about 55-65 ms of workerd CPU to 44, against 41 for a reference's formData(). A refusal still
 * stops reading within one such read.
 */
const STREAM_READ_BYTES = 64 * 1024;

/** workerd's extension of the BYOB reader (the DOM types, which win here, lack it). */
type WorkerdByobReader = ReadableStreamBYOBReader & {
  readAtLeast?: (minElements: number, view: Uint8Array) => Promise<ReadableStreamReadResult<Uint8Array>>;
};

/** The body's reader: workerd's BYOB readAtLeast, a fresh buffer per read (the parser keeps its chunks); else the default reader. */
function chunkReader(body: ReadableStream<Uint8Array>): { read(): Promise<ReadableStreamReadResult<Uint8Array>>; cancel(): Promise<void> } {
  let byob: WorkerdByobReader | null = null;
  try {
    byob = body.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream (Node's, a test's): the default reader below.
  }
  const readAtLeast = byob?.readAtLeast?.bind(byob);
  if (byob && readAtLeast) {
    const reader = byob;
    return {
      read: () => readAtLeast(STREAM_READ_BYTES, new Uint8Array(STREAM_READ_BYTES)),
      cancel: () => reader.cancel(),
    };
  }
  byob?.releaseLock();
  return body.getReader();
}

async function readMultipart(request: Request, contentType: string, uploads: UploadLimits | null): Promise<BodyResult> {
  const boundary = getMultipartBoundary(contentType);
  if (!boundary) throw new BodyRefusal("malformed_body");
  const limit = bodyLimitOf(request, uploads);
  const largestFile = Math.max(0, ...(uploads?.maxBytes.values() ?? []));
  const parser = new MultipartParser(boundary, {
    maxHeaderSize: MAX_PART_HEADER_BYTES,
    // Text parts are held to 64 KiB together below; a file part to its field's own limit.
    maxFileSize: Math.max(largestFile, MAX_BODY_BYTES),
    maxParts: MAX_FIELDS + (uploads?.maxFileParts ?? 0),
    maxTotalSize: limit,
  });
  const entries: [string, unknown][] = [];
  const files: UploadedPart[] = [];
  let textBytes = 0;
  let fileBytes = 0;
  const take = (part: MultipartPart) => {
    const name = wellFormedText(part.name ?? "");
    if (part.isFile) {
      const maxBytes = uploads?.maxBytes.get(name);
      if (maxBytes === undefined) throw new BodyRefusal("file_not_accepted");
      // An <input type=file> left empty still sends a part: no name, no bytes.
      if (part.size === 0 && !part.filename) return;
      if (part.size > maxBytes) throw new BodyRefusal("file_too_large", name);
      fileBytes += part.size;
      if (fileBytes > uploads!.maxUploadBytes) throw new BodyRefusal("upload_too_large");
      // The name is cleaned where it is kept (cleanFileName), not refused for a stray character.
      // part.bytes is one new array of the part's size (its chunks copied once), typed without its buffer.
      files.push({ field: name, name: part.filename ?? "", bytes: part.bytes as Uint8Array<ArrayBuffer> });
      return;
    }
    textBytes += part.size;
    if (textBytes > MAX_BODY_BYTES) throw new BodyRefusal("body_too_large");
    counted(entries, [name, wellFormedText(part.text)]);
  };
  let total = 0;
  try {
    for await (const chunk of bodyChunks(request, limit)) {
      // Parsed first: a file over its own limit is the more precise answer. The parser's maxTotalSize
      // bounds the parts too; this also counts their headers.
      if (chunk.byteLength > 0) for (const part of parser.write(chunk)) take(part);
      total += chunk.byteLength;
      if (total > limit) throw new BodyRefusal(tooLarge(limit));
    }
    parser.finish();
  } catch (error) {
    throw refusalOf(error, uploads);
  }
  return { ok: true, fields: collect(entries), files };
}

/** The parser's errors as refusals. */
function refusalOf(error: unknown, uploads: UploadLimits | null): BodyRefusal {
  if (error instanceof BodyRefusal) return error;
  if (error instanceof MaxFileSizeExceededError) {
    // With one file field it can only be that one's; with several, the part's name is not known yet.
    const only = uploads?.maxBytes.size === 1 ? [...uploads.maxBytes.keys()][0] : undefined;
    return uploads ? new BodyRefusal("file_too_large", only) : new BodyRefusal("body_too_large");
  }
  if (error instanceof MaxTotalSizeExceededError) return new BodyRefusal(uploads ? "upload_too_large" : "body_too_large");
  if (error instanceof MaxPartsExceededError) return new BodyRefusal("too_many_fields");
  // Bad UTF-8 in a part's headers or text: the parser decodes with fatal: true.
  if (error instanceof TypeError) return new BodyRefusal("invalid_text");
  return new BodyRefusal("malformed_body");
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

import {
  BodyRefusal,
  collect,
  counted,
  declaresTooLarge,
  kindOf,
  MAX_BODY_BYTES,
  wellFormedText,
  type BodyResult,
  type UploadLimits,
} from "~/lib/http/body-rules.server";
import { readMultipart } from "~/lib/http/multipart-body.server";
import { readMessageUpTo } from "~/lib/http/read-stream.server";

// Reads a submission body under a hard cap before anything parses it, in linear work; ill-formed text is refused,
// not repaired. URL-encoded bodies are split here: URLSearchParams turns `%FF` into U+FFFD silently.

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
function decode(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new BodyRefusal("invalid_text");
  }
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
  // A bare % stays literal, as URLSearchParams keeps it; a %XX that is not UTF-8 throws.
  try {
    return decodeURIComponent(spaced.replace(/%(?![0-9a-fA-F]{2})/g, "%25"));
  } catch {
    throw new BodyRefusal("invalid_text");
  }
}
function jsonEntries(text: string): [string, unknown][] {
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new BodyRefusal("malformed_body");
  const entries: [string, unknown][] = [];
  for (const name in parsed) {
    const value = (parsed as Record<string, unknown>)[name];
    counted(entries, [wellFormedText(name), typeof value === "string" ? wellFormedText(value) : value]);
  }
  return entries;
}

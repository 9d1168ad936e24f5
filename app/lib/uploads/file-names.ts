import { extensionsOf } from "~/lib/uploads/file-types";

// A file's name is the sender's text, never a key (ADR 051). Content-Disposition is written here: @remix-run/headers
// does not encode `filename*` as RFC 8187 requires.

const MAX_NAME_LENGTH = 200;
// Controls, direction marks and overrides (which make "gnp.exe" read as "exe.png"), zero-widths, BOM.
// eslint-disable-next-line no-control-regex -- matching control characters is this pattern's job
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/** The name to keep for an uploaded file of `type`: basename only, safe characters, its type's ending. */
export function cleanFileName(raw: string, type: string): string {
  const base = raw.slice(Math.max(raw.lastIndexOf("/"), raw.lastIndexOf("\\")) + 1);
  const name = base.normalize("NFC").replace(UNSAFE, "").trim().replace(/^\.+/, "").trim();
  const endings = extensionsOf(type);
  const own = endings.find((ending) => name.toLowerCase().endsWith(ending));
  const stem = own ? name.slice(0, -own.length) : name;
  const ending = own ? name.slice(-own.length) : (endings[0] ?? "");
  const cut = [...stem]
    .slice(0, MAX_NAME_LENGTH - ending.length)
    .join("")
    .trim();
  return `${cut || "file"}${ending}`;
}

/** For clients that ignore filename*: accents dropped, anything unusual as "_". */
export function asciiFileName(name: string): string {
  const plain = name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(/[^A-Za-z0-9 ._()-]/g, "_")
    .replace(/_+/g, "_");
  return plain.trim() || "file";
}

function encodeExtValue(text: string): string {
  return `UTF-8''${[...new TextEncoder().encode(text)]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      return /[A-Za-z0-9!#$&+\-.^_`|~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
    })
    .join("")}`;
}

/** `attachment; filename="…"; filename*=UTF-8''…` for a stored file name (RFC 6266, RFC 8187). */
export function attachmentDisposition(name: string): string {
  return `attachment; filename="${asciiFileName(name)}"; filename*=${encodeExtValue(name)}`;
}

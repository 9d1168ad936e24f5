import {
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_UPLOAD_BYTES,
  UPLOAD_TYPES,
  type FieldDef,
  type FormDef,
  type UploadType,
} from "~/forms/schema";

// The file types Gatepost takes, known by their leading bytes (ADR 050). Home-made: five signatures, where
// file-type would add 74 KB and need Node 22. Client-safe.

interface FileType {
  type: UploadType;
  label: string;
  extensions: readonly string[];
  matches: (bytes: Uint8Array) => boolean;
}

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0) => prefix.every((byte, i) => bytes[at + i] === byte);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

const FILE_TYPES: readonly FileType[] = [
  { type: "application/pdf", label: "PDF", extensions: [".pdf"], matches: (b) => startsWith(b, ascii("%PDF-")) },
  {
    type: "image/png",
    label: "PNG",
    extensions: [".png"],
    matches: (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  },
  { type: "image/jpeg", label: "JPEG", extensions: [".jpg", ".jpeg"], matches: (b) => startsWith(b, [0xff, 0xd8, 0xff]) },
  {
    type: "image/gif",
    label: "GIF",
    extensions: [".gif"],
    matches: (b) => startsWith(b, ascii("GIF87a")) || startsWith(b, ascii("GIF89a")),
  },
  {
    type: "image/webp",
    label: "WebP",
    extensions: [".webp"],
    matches: (b) => startsWith(b, ascii("RIFF")) && startsWith(b, ascii("WEBP"), 8),
  },
];

export const ALLOWED_FILE_TYPES: readonly string[] = UPLOAD_TYPES;
export const UNKNOWN_FILE_TYPE = "application/octet-stream";

const MB = 1024 * 1024;
export const DEFAULT_MAX_FILES = 1;
// A post is held in memory until Turnstile has passed, in a Worker of 128 MB (docs/decisions/050).
export const MAX_UPLOAD_BYTES_CEILING = 32 * MB;
export const MAX_FILES_CEILING = 10;

/** The type whose signature `bytes` start with, or null. Reads at most the first 12 bytes. */
export function sniffFileType(bytes: Uint8Array): string | null {
  return FILE_TYPES.find((t) => t.matches(bytes))?.type ?? null;
}

/** `type` when Gatepost knows it, else application/octet-stream: what a download may be labelled. */
export function servedType(type: string): string {
  return ALLOWED_FILE_TYPES.includes(type) ? type : UNKNOWN_FILE_TYPE;
}

export interface FileLimits {
  types: readonly string[];
  maxFiles: number;
  maxBytes: number;
}

/** A file field's limits with their defaults, and its types cut down to the allow-list. */
export function fileLimitsOf(field: FieldDef): FileLimits {
  // A definition from D1 or JSON may list anything: only the allow-list counts.
  const listed: readonly string[] = field.accept && field.accept.length > 0 ? field.accept : ALLOWED_FILE_TYPES;
  return {
    types: ALLOWED_FILE_TYPES.filter((type) => listed.includes(type)),
    maxFiles: field.maxFiles ?? DEFAULT_MAX_FILES,
    maxBytes: field.maxBytes ?? DEFAULT_MAX_FILE_BYTES,
  };
}

export function fileFieldsOf(form: Pick<FormDef, "fields">): readonly FieldDef[] {
  return form.fields.filter((field) => field.type === "file");
}

/** How many bytes of files one submission of `form` may carry together (0: it takes no files). */
export function uploadLimitOf(form: Pick<FormDef, "fields" | "maxUploadBytes">): number {
  return fileFieldsOf(form).length > 0 ? (form.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES) : 0;
}

/** "PDF", "PNG or JPEG". */
export function typeLabels(types: readonly string[], lang = "en"): string {
  const labels = FILE_TYPES.filter((t) => types.includes(t.type)).map((t) => t.label);
  if (lang !== "en") return new Intl.ListFormat(lang, { type: "disjunction" }).format(labels);
  return labels.length <= 1 ? (labels[0] ?? "") : `${labels.slice(0, -1).join(", ")} or ${labels[labels.length - 1]}`;
}

/** An <input type=file> accept attribute (a hint to the browser only). */
export function acceptAttribute(types: readonly string[]): string {
  return FILE_TYPES.filter((t) => types.includes(t.type))
    .flatMap((t) => [t.type, ...t.extensions])
    .join(",");
}

export function extensionsOf(type: string): readonly string[] {
  return FILE_TYPES.find((t) => t.type === type)?.extensions ?? [];
}

/** Bytes as a person reads a limit: "10 MB", "1.5 MB", "300 KB". */
export function formatBytes(bytes: number): string {
  if (bytes >= MB) return `${Number((bytes / MB).toFixed(1))} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}

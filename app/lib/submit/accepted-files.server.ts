import type { FieldValue, FormDef, StoredFile } from "~/forms/schema";
import { sha256Hex } from "~/lib/crypto/digest";
import type { UploadLimits } from "~/lib/http/body-rules.server";
import { newFileId, type FileToStore } from "~/lib/storage/file-objects.server";
import type { AcceptedFile, FieldErrors } from "~/lib/submit/validation";
import { cleanFileName } from "~/lib/uploads/file-names";
import { fileFieldsOf, fileLimitsOf, formatBytes, uploadLimitOf } from "~/lib/uploads/file-types";

// The accept pipeline's files (docs/decisions/050): the reader's limits, then, once verified, ids,
// digests and kept names.

/** null for a form that takes no files. */
export function uploadLimitsOf(form: FormDef): UploadLimits | null {
  const fields = fileFieldsOf(form);
  if (fields.length === 0) return null;
  const limits = fields.map((field) => [field.name, fileLimitsOf(field)] as const);
  return {
    maxBytes: new Map(limits.map(([name, l]) => [name, l.maxBytes])),
    maxUploadBytes: uploadLimitOf(form),
    maxFileParts: limits.reduce((sum, [, l]) => sum + l.maxFiles, 0),
  };
}

export function fileTooLargeErrors(form: FormDef, field: string | undefined): FieldErrors | undefined {
  const def = form.fields.find((f) => f.name === field && f.type === "file");
  if (!def) return undefined;
  return { [def.name]: `${def.label} takes files of up to ${formatBytes(fileLimitsOf(def).maxBytes)}: choose a smaller file.` };
}

/** Each file with its id (made at `nowMs`), SHA-256 and kept name. */
export async function describeFiles(files: readonly AcceptedFile[], nowMs: number): Promise<FileToStore[]> {
  return Promise.all(
    files.map(async ({ field, name, type, bytes }) => ({
      field,
      bytes,
      file: {
        id: newFileId(nowMs),
        name: cleanFileName(name, type),
        type,
        size: bytes.byteLength,
        sha256: await sha256Hex(bytes),
      },
    })),
  );
}

export function withFiles(form: FormDef, values: Record<string, FieldValue>, files: readonly FileToStore[]): Record<string, FieldValue> {
  const all: Record<string, FieldValue> = { ...values };
  for (const field of fileFieldsOf(form)) {
    // A file field not asked (its condition did not hold) has no value at all.
    if (!Object.hasOwn(values, field.name)) continue;
    all[field.name] = files.filter((f) => f.field === field.name).map((f): StoredFile => f.file);
  }
  return all;
}

/** What a key is bound to: a file counts by its name, type, size and digest, not its new id. */
export function fingerprintValues(values: Record<string, FieldValue>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.map((file: StoredFile) => [file.name, file.type, file.size, file.sha256]) : value,
    ]),
  );
}

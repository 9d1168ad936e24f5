import sql from "sql-template-tag";
import { v7 as uuidv7 } from "uuid";
import { z } from "zod";
import type { FieldValue, StoredFile } from "~/forms/schema";
import { parseRows, statement } from "~/lib/storage/sql.server";
import type { PurgeSelector } from "~/lib/storage/purge.server";

// Uploaded files in R2 (the UPLOADS binding; docs/decisions/050). A file's object key is
// `files/<id>`, where the id is a UUIDv7: random in 74 of its bits and never derived from the name,
// and ordered by the time it was made, so the orphan sweep can walk the keys written since its last
// run in order (docs/decisions/052). Each object records its submission's id, which is all the
// sweep needs to know whether it still belongs to one. The object's bytes are the file's, and its
// SHA-256 is handed to R2, which refuses a put whose bytes do not match.

export const FILE_KEY_PREFIX = "files/";
/** R2 deletes at most this many keys in one call. */
const DELETE_BATCH = 1000;

/** A new file id whose time part is `nowMs`. */
export function newFileId(nowMs: number): string {
  return uuidv7({ msecs: nowMs });
}

export function fileKey(fileId: string): string {
  return `${FILE_KEY_PREFIX}${fileId}`;
}

/** The bucket, or null when the Worker has none (a deploy without the binding: /healthz says so). */
export function uploadsBucket(env: { UPLOADS?: R2Bucket }): R2Bucket | null {
  return env.UPLOADS ?? null;
}

const StoredFileSchema = z.object({ id: z.string(), name: z.string(), type: z.string(), size: z.number(), sha256: z.string() });

/** The stored files in one field value; [] for any value that is not a list of files. */
export function filesOf(value: FieldValue | undefined): StoredFile[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => {
    const parsed = StoredFileSchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}

export interface FileToStore {
  file: StoredFile;
  field: string;
  bytes: Uint8Array<ArrayBuffer>;
}

/**
 * Puts every file of one submission, side by side. All or nothing: when one put fails, the ones that
 * went are deleted again and it returns false (anything that delete misses, the orphan sweep removes).
 */
export async function putFileObjects(bucket: R2Bucket, submissionId: string, files: readonly FileToStore[]): Promise<boolean> {
  const results = await Promise.allSettled(
    files.map(({ file, field, bytes }) =>
      bucket.put(fileKey(file.id), bytes, {
        sha256: file.sha256,
        httpMetadata: { contentType: file.type },
        customMetadata: { submission: submissionId, field },
      }),
    ),
  );
  const failed = results.find((result) => result.status === "rejected");
  if (!failed) return true;
  console.error(`storing the files of ${submissionId} failed:`, failed.reason);
  await deleteFileObjects(
    bucket,
    files.filter((_, i) => results[i].status === "fulfilled").map(({ file }) => file.id),
  ).catch((error) => console.error(`removing the files of ${submissionId} after a failed put failed:`, error));
  return false;
}

/** Deletes the objects of these file ids, a thousand keys per call. R2 errors throw. */
export async function deleteFileObjects(bucket: R2Bucket, fileIds: readonly string[]): Promise<void> {
  for (let i = 0; i < fileIds.length; i += DELETE_BATCH) {
    await bucket.delete(fileIds.slice(i, i + DELETE_BATCH).map(fileKey));
  }
}

/** The ids of every file stored in the selected submissions' fields: one statement, no write. */
export function fileIdsStatement(db: D1Database, selector: PurgeSelector): D1PreparedStatement {
  const where =
    "ids" in selector
      ? sql`s.id IN (SELECT value FROM json_each(${JSON.stringify(selector.ids)}))`
      : sql`s.form_id = ${selector.formId} AND s.received_at < ${selector.receivedBefore}`;
  // CASE, not WHERE, keeps json_each and json_extract away from values that are not lists of objects:
  // SQLite does not promise to test a WHERE condition before it calls a table-valued function.
  return statement(
    db,
    sql`SELECT CASE WHEN f.type = 'object' THEN json_extract(f.value, '$.id') END AS id
      FROM submissions s, json_each(s.fields) v, json_each(CASE WHEN v.type = 'array' THEN v.value ELSE '[]' END) f
      WHERE ${where}`,
  );
}

const FileIdRowSchema = z.object({ id: z.unknown() });

/** The file ids in the results of fileIdsStatement. */
export function fileIdsOfRows(rows: readonly unknown[]): string[] {
  return parseRows(FileIdRowSchema, rows).flatMap((row) => (typeof row.id === "string" ? [row.id] : []));
}

const FieldsRowSchema = z.object({ fields: z.string(), quarantine_reason: z.string().nullable() });

export interface FileRecord {
  file: StoredFile;
  /** False for a submission quarantined when it arrived: its files' bytes were never stored (docs/decisions/050). */
  kept: boolean;
}

/** One file of one submission as its row lists it, or null when either does not exist. D1 errors throw. */
export async function findStoredFile(db: D1Database, submissionId: string, fileId: string): Promise<FileRecord | null> {
  const { results } = await statement(db, sql`SELECT fields, quarantine_reason FROM submissions WHERE id = ${submissionId}`).all();
  const row = parseRows(FieldsRowSchema, results)[0];
  if (!row) return null;
  let fields: Record<string, FieldValue> = {};
  try {
    fields = JSON.parse(row.fields) as Record<string, FieldValue>;
  } catch {
    return null;
  }
  const file = Object.values(fields)
    .flatMap((value) => filesOf(value))
    .find((candidate) => candidate.id === fileId);
  return file ? { file, kept: filesKept(row.quarantine_reason) } : null;
}

/**
 * Whether a submission's files were stored: not for one quarantined on arrival (its quarantine reason
 * stays when it is released), since a suspected bot's files are never written (docs/decisions/050).
 */
export function filesKept(quarantineReason: string | null): boolean {
  return quarantineReason === null;
}

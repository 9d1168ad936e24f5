import sql, { type Sql } from "sql-template-tag";
import { v7 as uuidv7 } from "uuid";
import { z } from "zod";
import type { FieldValue, StoredFile } from "~/forms/schema";
import { parseRows, statement } from "~/lib/storage/sql.server";

// Uploaded files in R2 under `files/<UUIDv7>`, random and in time order for the orphan sweep (ADR 050, 052).

export const FILE_KEY_PREFIX = "files/";
const DELETE_BATCH = 1000;

export function newFileId(nowMs: number): string {
  return uuidv7({ msecs: nowMs });
}

export function fileKey(fileId: string): string {
  return `${FILE_KEY_PREFIX}${fileId}`;
}

/** null when the Worker has no UPLOADS binding. */
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

/** Puts a submission's files; false (the others deleted again) when any put fails. Never throws. */
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

/** R2 errors throw. */
export async function deleteFileObjects(bucket: R2Bucket, fileIds: readonly string[]): Promise<void> {
  for (let i = 0; i < fileIds.length; i += DELETE_BATCH) {
    await bucket.delete(fileIds.slice(i, i + DELETE_BATCH).map(fileKey));
  }
}

/** The ids of every file stored in the submissions `submissionIds` selects (a subquery): one read. */
export function fileIdsStatement(db: D1Database, submissionIds: Sql): D1PreparedStatement {
  // CASE, not WHERE: SQLite may call json_each before testing a WHERE condition.
  return statement(
    db,
    sql`SELECT CASE WHEN f.type = 'object' THEN json_extract(f.value, '$.id') END AS id
      FROM submissions s, json_each(s.fields) v, json_each(CASE WHEN v.type = 'array' THEN v.value ELSE '[]' END) f
      WHERE s.id IN (${submissionIds})`,
  );
}

const FileIdRowSchema = z.object({ id: z.unknown() });

export function fileIdsOfRows(rows: readonly unknown[]): string[] {
  return parseRows(FileIdRowSchema, rows).flatMap((row) => (typeof row.id === "string" ? [row.id] : []));
}

const FieldsRowSchema = z.object({ fields: z.string(), quarantine_reason: z.string().nullable() });

export interface FileRecord {
  file: StoredFile;
  kept: boolean;
}

/** null when the submission or the file does not exist. D1 errors throw. */
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

/** Not for a bot's submission (ADR 050); a post held as spam keeps its files, since a person may have sent it. */
export function filesKept(quarantineReason: string | null): boolean {
  return quarantineReason === null || quarantineReason.startsWith("spam_");
}

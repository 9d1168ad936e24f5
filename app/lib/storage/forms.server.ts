import sql from "sql-template-tag";
import { z } from "zod";
import { isRaisedBy } from "~/lib/storage/d1-failure.server";
import { parseRows, statement } from "~/lib/storage/sql.server";
import { embedRowsStatement, embedSitesByForm, type EmbedSites } from "~/lib/storage/embed-sites.server";

// Console forms in D1 (ADR 040): a `forms` row with its draft, a kept `form_versions` row per publish. Whoever
// reads a definition back checks it again before it is served.

const FormRowSchema = z.object({
  id: z.string(),
  draft: z.string().nullable(),
  draft_updated_at: z.number().nullable(),
  published_version: z.number().int().nullable(),
  archived_at: z.number().nullable(),
  created_at: z.number(),
  updated_at: z.number(),
});
export type FormRow = z.infer<typeof FormRowSchema>;

const VersionRowSchema = z.object({
  form_id: z.string(),
  version: z.number().int(),
  definition: z.string(),
  published_at: z.number(),
  published_by: z.string(),
});
export type VersionRow = z.infer<typeof VersionRowSchema>;

const PublishedRowSchema = z.object({
  id: z.string(),
  version: z.number().int(),
  definition: z.string(),
  archived_at: z.number().nullable(),
});
export type PublishedRow = z.infer<typeof PublishedRowSchema>;

const SettingRowSchema = z.object({ form_id: z.string(), name: z.string(), value: z.string(), updated_at: z.number() });
export type SettingRow = z.infer<typeof SettingRowSchema>;

/** Archived ones included; a trigger enforces it at create (migration 0047), so the reads below need no LIMIT. */
export const MAX_CONSOLE_FORMS = 200;

/** True for the error D1 throws when an insert would pass MAX_CONSOLE_FORMS. */
export function isFormLimitError(error: unknown): boolean {
  return isRaisedBy(error, "gatepost_form_limit_reached");
}

/** What every isolate's form catalog is built from, in one round trip. D1 errors throw. */
export async function readCatalogRows(
  db: D1Database,
): Promise<{ published: PublishedRow[]; settings: SettingRow[]; embeds: Map<string, EmbedSites> }> {
  const [published, settings, embeds] = await db.batch<Record<string, unknown>>([
    statement(
      db,
      sql`SELECT f.id, v.version, v.definition, f.archived_at FROM forms f
          JOIN form_versions v ON v.form_id = f.id AND v.version = f.published_version
          ORDER BY f.id`,
    ),
    statement(db, sql`SELECT form_id, name, value, updated_at FROM form_settings ORDER BY form_id, name`),
    embedRowsStatement(db),
  ]);
  return {
    published: parseRows(PublishedRowSchema, published.results),
    settings: parseRows(SettingRowSchema, settings.results),
    embeds: embedSitesByForm(embeds.results),
  };
}

/** Every console form's row, by id. D1 errors throw. */
export async function listFormRows(db: D1Database): Promise<FormRow[]> {
  const { results } = await statement(db, sql`SELECT * FROM forms ORDER BY id`).all();
  return parseRows(FormRowSchema, results);
}

/** Every kept version of every console form, newest first, without definitions. D1 errors throw. */
export async function listVersionSummaries(db: D1Database, formId?: string): Promise<Omit<VersionRow, "definition">[]> {
  const where = formId === undefined ? sql`` : sql`WHERE form_id = ${formId}`;
  const { results } = await statement(
    db,
    sql`SELECT form_id, version, '' AS definition, published_at, published_by FROM form_versions ${where}
        ORDER BY form_id, version DESC`,
  ).all();
  return parseRows(VersionRowSchema, results);
}

/** One console form's row, null when there is none. D1 errors throw. */
export async function getFormRow(db: D1Database, id: string): Promise<FormRow | null> {
  const row = await statement(db, sql`SELECT * FROM forms WHERE id = ${id}`).first();
  return row ? FormRowSchema.parse(row) : null;
}

/** One kept version, null when there is none. D1 errors throw. */
export async function getVersion(db: D1Database, formId: string, version: number): Promise<VersionRow | null> {
  const row = await statement(db, sql`SELECT * FROM form_versions WHERE form_id = ${formId} AND version = ${version}`).first();
  return row ? VersionRowSchema.parse(row) : null;
}

/** The INSERT of a new console form holding `draft`; it fails on a taken id (the primary key). */
export function insertFormStatement(db: D1Database, id: string, draft: string, nowMs: number): D1PreparedStatement {
  return statement(
    db,
    sql`INSERT INTO forms (id, draft, draft_updated_at, created_at, updated_at)
        VALUES (${id}, ${draft}, ${nowMs}, ${nowMs}, ${nowMs}) RETURNING id`,
  );
}

/** Replaces a form's draft; RETURNING id says whether the form exists. */
export function saveDraftStatement(db: D1Database, id: string, draft: string, nowMs: number): D1PreparedStatement {
  return statement(
    db,
    sql`UPDATE forms SET draft = ${draft}, draft_updated_at = ${nowMs}, updated_at = ${nowMs} WHERE id = ${id} RETURNING id`,
  );
}

/** Drops a form's draft (the published version stays); RETURNING id says whether there was one. */
export function discardDraftStatement(db: D1Database, id: string, nowMs: number): D1PreparedStatement {
  return statement(
    db,
    sql`UPDATE forms SET draft = NULL, draft_updated_at = NULL, updated_at = ${nowMs}
        WHERE id = ${id} AND draft IS NOT NULL RETURNING id`,
  );
}

/** Publishing `definition` as `version` only over the version before (a concurrent publish changes nothing); RETURNING says if it did. */
export function publishStatements(
  db: D1Database,
  input: { id: string; version: number; definition: string; actor: string; nowMs: number },
): D1PreparedStatement[] {
  const { id, version, definition, actor, nowMs } = input;
  return [
    statement(
      db,
      sql`UPDATE forms SET published_version = ${version}, draft = NULL, draft_updated_at = NULL, updated_at = ${nowMs}
          WHERE id = ${id} AND COALESCE(published_version, 0) = ${version - 1} RETURNING id`,
    ),
    statement(
      db,
      sql`INSERT INTO form_versions (form_id, version, definition, published_at, published_by)
          SELECT ${id}, ${version}, ${definition}, ${nowMs}, ${actor}
          WHERE EXISTS (SELECT 1 FROM forms WHERE id = ${id} AND published_version = ${version})`,
    ),
  ];
}

/** Archives (new submissions refused) or restores a form; RETURNING id says whether it changed. */
export function archiveStatement(db: D1Database, id: string, archived: boolean, nowMs: number): D1PreparedStatement {
  return archived
    ? statement(
        db,
        sql`UPDATE forms SET archived_at = ${nowMs}, updated_at = ${nowMs} WHERE id = ${id} AND archived_at IS NULL RETURNING id`,
      )
    : statement(
        db,
        sql`UPDATE forms SET archived_at = NULL, updated_at = ${nowMs} WHERE id = ${id} AND archived_at IS NOT NULL RETURNING id`,
      );
}

export const FIELD_USE_SCAN = 2000;

/** A field's values among the `read` newest submissions; `more`: older ones went unread. */
export interface FieldUse {
  submissions: number;
  read: number;
  more: boolean;
}

/** Which of `names` hold values, reading at most FIELD_USE_SCAN rows per name; `more: true` means treat it as in use. D1 errors throw. */
export async function countFieldValues(db: D1Database, formId: string, names: readonly string[]): Promise<Map<string, FieldUse>> {
  if (names.length === 0) return new Map();
  const results = await db.batch<{ examined: number; holding: number | null }>(
    names.map((name) =>
      statement(
        db,
        sql`SELECT COUNT(*) AS examined, SUM(json_type(fields, ${`$."${name}"`}) NOT IN ('null')) AS holding
            FROM (SELECT fields FROM submissions WHERE form_id = ${formId} ORDER BY received_at DESC, id DESC LIMIT ${FIELD_USE_SCAN + 1})`,
      ),
    ),
  );
  return new Map(
    names.map((name, i) => {
      const row = results[i].results[0];
      const examined = z.number().parse(row?.examined ?? 0);
      const holding = z.number().parse(row?.holding ?? 0);
      const more = examined > FIELD_USE_SCAN;
      const extra = more && holding > FIELD_USE_SCAN ? 1 : 0;
      return [name, { submissions: Math.min(holding - extra, FIELD_USE_SCAN), read: Math.min(examined, FIELD_USE_SCAN), more }];
    }),
  );
}

/** One form's console settings (sealed values). D1 errors throw. */
export async function listSettingRows(db: D1Database, formId: string): Promise<SettingRow[]> {
  const { results } = await statement(db, sql`SELECT form_id, name, value, updated_at FROM form_settings WHERE form_id = ${formId}`).all();
  return parseRows(SettingRowSchema, results);
}

/** Sets one console setting to a sealed value. */
export function putSettingStatement(db: D1Database, formId: string, name: string, sealed: string, nowMs: number): D1PreparedStatement {
  return statement(
    db,
    sql`INSERT INTO form_settings (form_id, name, value, updated_at) VALUES (${formId}, ${name}, ${sealed}, ${nowMs})
        ON CONFLICT (form_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  );
}

/** Clears one console setting; RETURNING says whether it was set. */
export function deleteSettingStatement(db: D1Database, formId: string, name: string): D1PreparedStatement {
  return statement(db, sql`DELETE FROM form_settings WHERE form_id = ${formId} AND name = ${name} RETURNING name`);
}

/** Every sealed setting whose key is not `keyId`, for re-sealing under the newest key. D1 errors throw. */
export async function listSettingsSealedWithOtherKeys(db: D1Database, keyId: string, limit: number): Promise<SettingRow[]> {
  const { results } = await statement(
    db,
    sql`SELECT form_id, name, value, updated_at FROM form_settings WHERE value NOT LIKE ${`v1.${keyId}.%`} LIMIT ${limit}`,
  ).all();
  return parseRows(SettingRowSchema, results);
}

/** Replaces one sealed value only if it is still `previous` (a concurrent change wins). */
export function resealStatement(db: D1Database, row: SettingRow, sealed: string): D1PreparedStatement {
  return statement(
    db,
    sql`UPDATE form_settings SET value = ${sealed} WHERE form_id = ${row.form_id} AND name = ${row.name} AND value = ${row.value}`,
  );
}

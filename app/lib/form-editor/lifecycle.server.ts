import { checkFormDef, checkFormShape } from "~/lib/forms/check";
import { findCodeForm } from "~/lib/forms/registry";
import type { FormDef } from "~/forms/schema";
import type { AdminUser } from "~/lib/auth/admin-user.server";
import { auditStatement } from "~/lib/storage/audit-log.server";
import { isConstraintFailure } from "~/lib/storage/d1-failure.server";
import { forgetFormCatalog, type FormCatalog } from "~/lib/forms/catalog.server";
import { describeChanges } from "~/lib/forms/changes";
import type { ErrorCode } from "~/lib/http/errors";
import { findSettingNameClash, type SettingNameClash, type Settings } from "~/lib/settings/settings.server";
import {
  archiveStatement,
  countFieldValues,
  discardDraftStatement,
  getFormRow,
  getVersion,
  insertFormStatement,
  isFormLimitError,
  listFormRows,
  listVersionSummaries,
  publishStatements,
  saveDraftStatement,
  type FormRow,
} from "~/lib/storage/forms.server";

// Create, keep a draft, publish a kept version, archive: each change is one D1 batch with its audit row, and a
// publish or archive drops this isolate's catalog (ADR 045). A draft never changes the live form.

export interface FormsActionContext {
  db: D1Database;
  settings: Settings;
  user: AdminUser;
  request: Request;
  nowMs: number;
}

/** A field a publish would rename or remove while stored submissions may hold it (countFieldValues). */
export interface FieldInUse {
  name: string;
  submissions: number;
  read: number;
  more: boolean;
}

export type FormChange<T = object> = ({ ok: true } & T) | { ok: false; code: ErrorCode; problems?: string[]; fieldsInUse?: FieldInUse[] };

export interface ConsoleFormState {
  row: FormRow;
  draft: FormDef | null;
  published: FormDef | null;
}

function parseStored(json: string | null): FormDef | null {
  if (json === null) return null;
  try {
    const shape = checkFormShape(JSON.parse(json));
    return shape.ok ? shape.form : null;
  } catch {
    return null;
  }
}

/** A console form with its draft and its published definition; null when there is none. D1 errors throw. */
export async function loadConsoleForm(db: D1Database, id: string): Promise<ConsoleFormState | null> {
  const row = await getFormRow(db, id);
  if (!row) return null;
  const version = row.published_version === null ? null : await getVersion(db, id, row.published_version);
  return { row, draft: parseStored(row.draft), published: parseStored(version?.definition ?? null) };
}

/** Keeps `value` as form `id`'s draft (creating the form); `strict` (the API) keeps only one passing the whole check. D1 errors throw. */
export async function saveDraft(
  ctx: FormsActionContext,
  id: string,
  value: unknown,
  { strict = false }: { strict?: boolean } = {},
): Promise<FormChange<{ created: boolean; problems: string[] }>> {
  if (findCodeForm(id)) return { ok: false, code: "form_defined_in_code" };
  const definition = typeof value === "object" && value !== null ? { ...value, id } : value;
  const full = checkFormDef(definition, { allowLoopbackHttp: ctx.settings.allowLoopbackHttp });
  const shape = full.ok ? full : checkFormShape(definition);
  if (!shape.ok || (strict && !full.ok)) {
    return { ok: false, code: "form_definition_invalid", problems: full.ok ? [] : full.problems };
  }
  const form = shape.form;
  const existing = await loadConsoleForm(ctx.db, id);
  if (!existing) {
    const clash = findSettingNameClash(id);
    if (clash) return { ok: false, code: "form_id_settings_clash", problems: [describeClash(id, clash)] };
  }
  const json = JSON.stringify(form);
  const before = existing?.draft ?? existing?.published ?? null;
  const audit = auditStatement(ctx.db, {
    user: ctx.user,
    request: ctx.request,
    action: existing ? "form.draft" : "form.create",
    target: id,
    detail: { changes: describeChanges(before, form) },
    nowMs: ctx.nowMs,
  });
  const write = existing ? saveDraftStatement(ctx.db, id, json, ctx.nowMs) : insertFormStatement(ctx.db, id, json, ctx.nowMs);
  try {
    await ctx.db.batch([write, audit]);
  } catch (error) {
    if (isFormLimitError(error)) return { ok: false, code: "form_limit_reached" };
    if (isConstraintFailure(error)) return { ok: false, code: "form_exists" };
    throw error;
  }
  return { ok: true, created: !existing, problems: full.ok ? [] : full.problems };
}

function describeClash(id: string, clash: SettingNameClash): string {
  return `form id "${id}": its ${clash.suffix} would be ${clash.name}, which is form "${clash.otherFormId}"'s ${clash.otherSuffix}; choose an id that does not end in "-${id.slice(clash.otherFormId.length + 1)}"`;
}

/** Creates a console form from a definition (new id only). D1 errors throw. */
export async function createForm(ctx: FormsActionContext, value: unknown): Promise<FormChange<{ id: string; problems: string[] }>> {
  const id = typeof (value as { id?: unknown } | null)?.id === "string" ? (value as { id: string }).id : "";
  if (!/^[a-z][a-z0-9-]{0,39}$/.test(id)) {
    return {
      ok: false,
      code: "form_definition_invalid",
      problems: [`form id "${id.slice(0, 60)}" must be lower-case letters, digits and dashes`],
    };
  }
  if (await getFormRow(ctx.db, id)) return { ok: false, code: "form_exists" };
  const saved = await saveDraft(ctx, id, value);
  return saved.ok ? { ok: true, id, problems: saved.problems } : saved;
}

/** Publishes the draft as the next version; renaming or removing a field that holds data needs `confirmFieldNames`. D1 errors throw. */
export async function publishDraft(
  ctx: FormsActionContext,
  id: string,
  { confirmFieldNames = false }: { confirmFieldNames?: boolean } = {},
): Promise<FormChange<{ version: number; changes: string[] }>> {
  if (findCodeForm(id)) return { ok: false, code: "form_defined_in_code" };
  const state = await loadConsoleForm(ctx.db, id);
  if (!state) return { ok: false, code: "form_not_found" };
  if (!state.draft) return { ok: false, code: "form_draft_missing" };
  const check = checkFormDef(state.draft, { allowLoopbackHttp: ctx.settings.allowLoopbackHttp });
  if (!check.ok) return { ok: false, code: "form_definition_invalid", problems: check.problems };
  const form = check.form;
  if (state.published) {
    const kept = new Set(form.fields.map((f) => f.name));
    const gone = state.published.fields.map((f) => f.name).filter((name) => !kept.has(name));
    const counts = await countFieldValues(ctx.db, id, gone);
    // Bounded reads: a field unseen in a large form's newest rows may be in older ones.
    const fieldsInUse = gone
      .map((name) => ({ name, ...(counts.get(name) ?? { submissions: 0, read: 0, more: false }) }))
      .filter((use) => use.submissions > 0 || use.more);
    if (fieldsInUse.length > 0 && !confirmFieldNames) return { ok: false, code: "form_field_names_in_use", fieldsInUse };
  }
  const version = (state.row.published_version ?? 0) + 1;
  const changes = describeChanges(state.published, form);
  const [moved] = await ctx.db.batch([
    ...publishStatements(ctx.db, { id, version, definition: JSON.stringify(form), actor: ctx.user.id, nowMs: ctx.nowMs }),
    auditStatement(ctx.db, {
      user: ctx.user,
      request: ctx.request,
      action: "form.publish",
      ifChanged: true,
      target: id,
      detail: { version, changes, ...(confirmFieldNames ? { confirmedFieldNames: true } : {}) },
      nowMs: ctx.nowMs,
    }),
  ]);
  if (moved.results.length === 0) return { ok: false, code: "form_publish_conflict" };
  forgetFormCatalog();
  return { ok: true, version, changes };
}

/** Drops the draft of form `id`; the published version stays live. D1 errors throw. */
export async function discardDraft(ctx: FormsActionContext, id: string): Promise<FormChange> {
  const [dropped] = await ctx.db.batch([
    discardDraftStatement(ctx.db, id, ctx.nowMs),
    auditStatement(ctx.db, {
      user: ctx.user,
      request: ctx.request,
      action: "form.discard-draft",
      ifChanged: true,
      target: id,
      nowMs: ctx.nowMs,
    }),
  ]);
  return dropped.results.length > 0 ? { ok: true } : { ok: false, code: "form_draft_missing" };
}

/** Archives a form (new submissions refused with 410, stored ones kept) or restores it. D1 errors throw. */
export async function setArchived(ctx: FormsActionContext, id: string, archived: boolean): Promise<FormChange> {
  const [changed] = await ctx.db.batch([
    archiveStatement(ctx.db, id, archived, ctx.nowMs),
    auditStatement(ctx.db, {
      user: ctx.user,
      request: ctx.request,
      action: archived ? "form.archive" : "form.restore",
      ifChanged: true,
      target: id,
      nowMs: ctx.nowMs,
    }),
  ]);
  if (changed.results.length === 0) return { ok: false, code: "form_not_found" };
  forgetFormCatalog();
  return { ok: true };
}

export interface FormSummary {
  id: string;
  title: string;
  source: "code" | "console";
  status: "draft" | "published" | "archived";
  version: string | null;
  hasDraft: boolean;
  versions: { version: number; publishedAt: string; publishedBy: string }[];
  shadowed: boolean;
}

/** Every form, files first, then the console's, with their versions. D1 errors throw. */
export async function listForms(db: D1Database, catalog: FormCatalog): Promise<FormSummary[]> {
  const [rows, versions] = await Promise.all([listFormRows(db), listVersionSummaries(db)]);
  const code: FormSummary[] = [...catalog.forms.values()]
    .filter((live) => live.source === "code")
    .map((live) => ({
      id: live.form.id,
      title: live.form.title,
      source: "code",
      status: "published",
      version: live.version,
      hasDraft: false,
      versions: [],
      shadowed: false,
    }));
  const consoleForms: FormSummary[] = rows.map((row) => {
    const draft = parseStored(row.draft);
    const live = catalog.forms.get(row.id);
    return {
      id: row.id,
      title: (live?.source === "console" ? live.form.title : draft?.title) ?? row.id,
      source: "console",
      status: row.published_version === null ? "draft" : row.archived_at !== null ? "archived" : "published",
      version: row.published_version === null ? null : String(row.published_version),
      hasDraft: row.draft !== null,
      versions: versions
        .filter((v) => v.form_id === row.id)
        .map((v) => ({ version: v.version, publishedAt: new Date(v.published_at).toISOString(), publishedBy: v.published_by })),
      shadowed: live?.source === "code",
    };
  });
  return [...code, ...consoleForms];
}

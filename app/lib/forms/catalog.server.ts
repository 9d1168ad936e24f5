import { checkFormDef } from "~/lib/forms/check";
import { FORMS } from "~/lib/forms/registry";
import type { FormDef } from "~/forms/schema";
import { sha256Hex } from "~/lib/crypto/digest";
import { sealingKey } from "~/lib/crypto/secret-box.server";
import { openSettingRows, type ConsoleSettingValues } from "~/lib/forms/console-settings.server";
import type { FormSettingSuffix } from "~/lib/settings/settings.server";
import { classifyD1Failure, withD1Retry } from "~/lib/storage/d1-failure.server";
import { readCatalogRows, type PublishedRow } from "~/lib/storage/forms.server";
import type { EmbedSites } from "~/lib/storage/embed-sites.server";

// Every form Gatepost serves, files' and console's, with their settings, kept per isolate (ADR 045): a warm page
// view reads no D1. Younger than FRESH_MS: served as is; than STALE_BOUND_MS: served while a fresh one is read
// after the answer; older: read again first. The isolate that publishes drops its catalog at once.

export const FRESH_MS = 10_000;
export const STALE_BOUND_MS = 30_000;

export interface LiveForm {
  form: FormDef;
  /** The version a submission records: "3" for a console form's third publish, "code-<hash>" for a file. */
  version: string;
  source: "code" | "console";
  /** Archived console forms refuse new submissions (410) and keep delivering the stored ones. */
  archived: boolean;
}

export interface FormCatalog {
  readAtMs: number | null;
  /** Every form by id, code forms first: a console form never shadows a file. */
  forms: ReadonlyMap<string, LiveForm>;
  settings: ReadonlyMap<string, Partial<Record<FormSettingSuffix, string>>>;
  /** The sites allowed to embed each form, as the console set them (the environment's win: ADR 076). */
  embeds: ReadonlyMap<string, EmbedSites>;
  /** Console settings no key opens (a key removed too early): named, never used. */
  unreadable: readonly { formId: string; name: string }[];
  /** True when D1 could not be read: only the files' forms (and the last catalog, if any) are known. */
  incomplete: boolean;
}

export interface CatalogDeps {
  db: D1Database;
  encryptionKeys: readonly string[];
  nowMs: number;
  waitUntil?: (promise: Promise<unknown>) => void;
}

// Only finished values are kept, never a promise: Workers refuses I/O across requests.
let cached: FormCatalog | null = null;
let refreshStartedMs: number | null = null;

/** The catalog, from this isolate's copy when fresh enough (see above). Never throws: without D1 it is incomplete. */
export async function loadFormCatalog(deps: CatalogDeps): Promise<FormCatalog> {
  const age = cached?.readAtMs != null ? deps.nowMs - cached.readAtMs : Infinity;
  if (cached && age >= 0 && age < FRESH_MS) return cached;
  if (cached && age >= 0 && age < STALE_BOUND_MS && deps.waitUntil) {
    if (refreshStartedMs === null || deps.nowMs - refreshStartedMs >= FRESH_MS) {
      refreshStartedMs = deps.nowMs;
      // Started once the current task is done, so the read never delays this answer.
      const read = new Promise((resolve) => setTimeout(resolve, 0)).then(() => readCatalog(deps));
      deps.waitUntil(read.finally(() => (refreshStartedMs = null)));
    }
    return cached;
  }
  return readCatalog(deps);
}

/** Drops this isolate's catalog, so the next request reads D1: after a change made here. */
export function forgetFormCatalog(): void {
  cached = null;
}

/** The files' forms alone, for code that runs without D1. */
export async function codeCatalog(): Promise<FormCatalog> {
  return { readAtMs: null, forms: await codeForms(), settings: new Map(), embeds: new Map(), unreadable: [], incomplete: true };
}

async function readCatalog(deps: CatalogDeps): Promise<FormCatalog> {
  try {
    const rows = await withD1Retry(() => readCatalogRows(deps.db));
    const keys = await Promise.all(deps.encryptionKeys.map(sealingKey));
    const forms = new Map(await codeForms());
    for (const row of rows.published) {
      const live = consoleForm(row);
      if (live && !forms.has(live.form.id)) forms.set(live.form.id, live);
      else if (live) console.error(`console form ${row.id} is shadowed by the form file with the same id`);
    }
    const opened = await openSettingRows(rows.settings, keys, deps.nowMs);
    const catalog: FormCatalog = { readAtMs: deps.nowMs, forms, ...opened, embeds: rows.embeds, incomplete: false };
    cached = catalog;
    return catalog;
  } catch (error) {
    // ADR 087: a bug is a 500; a D1 that cannot answer leaves the last catalog (or the files), marked incomplete.
    if (classifyD1Failure(error) === "bug") throw error;
    console.error("form catalog could not be read from D1:", error);
    return cached ? { ...cached, incomplete: true } : codeCatalog();
  }
}

// Versions are immutable, so each is checked once per isolate, keyed by the definition itself: a database
// restored to an earlier day must not be served what this isolate remembers under the same number.
const checkedVersions = new Map<string, LiveForm | null>();
const MAX_CHECKED = 500;

function consoleForm(row: PublishedRow): LiveForm | null {
  const key = `${row.id}@${row.version}:${row.definition}`;
  let live = checkedVersions.get(key);
  if (live === undefined) {
    live = parseDefinition(row);
    if (checkedVersions.size >= MAX_CHECKED) checkedVersions.delete(checkedVersions.keys().next().value!);
    checkedVersions.set(key, live);
  }
  return live ? { ...live, archived: row.archived_at !== null } : null;
}

function parseDefinition(row: PublishedRow): LiveForm | null {
  let value: unknown;
  try {
    value = JSON.parse(row.definition);
  } catch {
    value = null;
  }
  const check = checkFormDef(value, { allowLoopbackHttp: true, published: true });
  if (!check.ok || check.form.id !== row.id) {
    console.error(`console form ${row.id} version ${row.version} fails the definition check and is not served`);
    return null;
  }
  return { form: check.form, version: String(row.version), source: "console", archived: false };
}

let codeFormMap: Map<string, LiveForm> | null = null;

async function codeForms(): Promise<Map<string, LiveForm>> {
  if (!codeFormMap) {
    const versions = await Promise.all(FORMS.map(codeFormVersion));
    codeFormMap = new Map(FORMS.map((form, i) => [form.id, { form, version: versions[i], source: "code", archived: false }]));
  }
  return codeFormMap;
}

/** A form file's version: "code-" and the start of a SHA-256 of its definition, so a changed file is a new version. */
export async function codeFormVersion(form: FormDef): Promise<string> {
  return `code-${(await sha256Hex(JSON.stringify(form))).slice(0, 12)}`;
}

/** The console form's own version number of a LiveForm version, or null for a file's. */
export function consoleVersionNumber(version: string | null): number | null {
  return version !== null && /^[1-9]\d{0,8}$/.test(version) ? Number(version) : null;
}

export type { ConsoleSettingValues };

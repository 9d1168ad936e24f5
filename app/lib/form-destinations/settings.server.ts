import type { AdminUser } from "~/lib/auth/admin-user.server";
import { auditStatement } from "~/lib/storage/audit-log.server";
import { open, sealingKey, type SealingKey } from "~/lib/crypto/secret-box.server";
import { forgetFormCatalog } from "~/lib/forms/catalog.server";
import {
  decodeGeneratedSecrets,
  encodeGeneratedSecrets,
  isGeneratedSetting,
  SECRET_OVERLAP_MS,
  sealSetting,
  settingContext,
  signingSecrets,
} from "~/lib/forms/console-settings.server";
import type { ErrorCode } from "~/lib/http/errors";
import { tellLocalSink } from "~/lib/form-destinations/tell-local-sink.server";
import { localSinkSettings } from "~/lib/settings/local-sink.server";
import { settingSpec } from "~/lib/destinations/registry";
import { FORM_SETTING_SUFFIXES, formSettingName, type FormSettingSuffix, type Settings } from "~/lib/settings/settings.server";
import { deleteSettingStatement, listSettingRows, putSettingStatement } from "~/lib/storage/forms.server";

// A form's destination settings in the console: the environment's win, read-only (ADR 041); the others are
// sealed in D1 (ADR 042). Secrets are never shown again; a generated one is shown once and rotated with an overlap.

export interface DestinationsContext {
  db: D1Database;
  settings: Settings;
  user: AdminUser;
  request: Request;
  nowMs: number;
}

/** "local": unset, so under `npm start` a console form's kind goes to the local sink (ADR 066). */
export type SettingSource = "environment" | "console" | "local" | "unset";

export interface SettingView {
  name: FormSettingSuffix;
  variable: string;
  source: SettingSource;
  /** What the console may show of the value: addresses and on/off in full, URLs shortened, secrets never. */
  shown: string | null;
  previousUntil?: number | null;
  unreadable?: boolean;
  /** Unset for this form while a site-wide variable stands in (ADR 097): its name, what may be shown, when it applies. */
  siteWide?: { variable: string; shown: string | null; note: string };
}

export type SettingChange<T = object> = ({ ok: true } & T) | { ok: false; code: ErrorCode; message?: string };

export const TYPED_SETTINGS: readonly FormSettingSuffix[] = FORM_SETTING_SUFFIXES.filter((suffix) => settingSpec(suffix)?.setting.check);
export type TypedSetting = FormSettingSuffix;

export const GENERATED_SETTINGS: readonly FormSettingSuffix[] = FORM_SETTING_SUFFIXES.filter(isGeneratedSetting);

async function keys(settings: Settings): Promise<SealingKey[]> {
  return Promise.all(settings.encryptionKeys.map(sealingKey));
}

/** Every destination setting of one form and where it comes from; `consoleForm`: the local sink fills what is unset. D1 errors throw. */
export async function loadSettingViews(
  db: D1Database,
  settings: Settings,
  formId: string,
  nowMs: number,
  consoleForm = true,
): Promise<SettingView[]> {
  const environment = settings.environmentForm(formId);
  const local: Partial<Record<FormSettingSuffix, string>> =
    settings.localSink && consoleForm ? localSinkSettings(settings.localSink, formId) : {};
  const rows = new Map((await listSettingRows(db, formId)).map((row) => [row.name, row]));
  const opened = await keys(settings);
  // A form's own value for `whileUnset` (its provider) turns the kind's site-wide stand-ins off together.
  const ownValue = (name: string) =>
    environment[name as FormSettingSuffix] !== "" || rows.has(name) || local[name as FormSettingSuffix] !== undefined;
  const siteWide = (name: FormSettingSuffix) => {
    const whileUnset = settingSpec(name)?.setting.siteWide?.whileUnset;
    return whileUnset && ownValue(whileUnset) ? {} : siteWideView(settings, name);
  };
  return Promise.all(
    FORM_SETTING_SUFFIXES.map(async (name): Promise<SettingView> => {
      const variable = formSettingName(formId, name);
      if (environment[name] !== "") return { name, variable, source: "environment", shown: null };
      const row = rows.get(name);
      const fallback = local[name];
      if (!row && fallback !== undefined)
        return { name, variable, source: "local", shown: settingSpec(name)?.setting.shown === "never" ? null : fallback };
      if (!row) return { name, variable, source: "unset", shown: null, ...siteWide(name) };
      const plain = await open(opened, row.value, settingContext(formId, name));
      if (plain === null) return { name, variable, source: "console", shown: null, unreadable: true };
      if (isGeneratedSetting(name)) {
        const secrets = decodeGeneratedSecrets(plain);
        const previous = secrets?.secrets.find((s) => s.until !== null && s.until > nowMs);
        return { name, variable, source: "console", shown: null, previousUntil: previous?.until ?? null };
      }
      return { name, variable, source: "console", shown: showValue(name, plain) };
    }),
  );
}

function siteWideView(settings: Settings, name: FormSettingSuffix): Pick<SettingView, "siteWide"> {
  const siteWide = settingSpec(name)?.setting.siteWide;
  const value = settings.siteWide[name];
  return siteWide && value ? { siteWide: { variable: siteWide.variable, shown: showValue(name, value), note: siteWide.note } } : {};
}

/** What the console shows of a stored value: a URL carries its owner's token in the path, so only its host and end. */
function showValue(name: FormSettingSuffix, value: string): string | null {
  const shown = settingSpec(name)?.setting.shown ?? "never";
  if (shown === "full") return value;
  if (shown === "never") return null;
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}/…${value.slice(-4)}`;
  } catch {
    return "…";
  }
}

function checkValue(name: TypedSetting, raw: string, settings: Settings): { ok: true; value: string } | { ok: false; message: string } {
  const check = settingSpec(name)?.setting.check;
  if (!check) return { ok: false, message: "This setting is not typed." };
  return check(raw.trim(), { allowLoopbackHttp: settings.allowLoopbackHttp });
}

async function refuseUnlessWritable(
  ctx: DestinationsContext,
  formId: string,
  name: FormSettingSuffix,
): Promise<{ ok: false; code: ErrorCode } | null> {
  if (ctx.settings.environmentForm(formId)[name] !== "") return { ok: false, code: "setting_set_by_environment" };
  if (ctx.settings.encryptionKeys.length === 0) return { ok: false, code: "settings_encryption_key_missing" };
  return null;
}

/** Sets one typed destination setting of `formId` (the caller knows the form exists). D1 errors throw. */
export async function setSetting(ctx: DestinationsContext, formId: string, name: TypedSetting, raw: string): Promise<SettingChange> {
  const refused = await refuseUnlessWritable(ctx, formId, name);
  if (refused) return refused;
  const checked = checkValue(name, raw, ctx.settings);
  if (!checked.ok) return { ok: false, code: "setting_invalid", message: checked.message };
  const [key] = await keys(ctx.settings);
  const sealed = await sealSetting(key, formId, name, checked.value);
  await ctx.db.batch([
    putSettingStatement(ctx.db, formId, name, sealed, ctx.nowMs),
    auditStatement(ctx.db, { ...audit(ctx), action: "form.setting", target: formId, detail: { setting: name, change: "set" } }),
  ]);
  forgetFormCatalog();
  return { ok: true };
}

/** Clears one console setting of `formId` (its kind is then off, unless the environment sets it). D1 errors throw. */
export async function clearSetting(ctx: DestinationsContext, formId: string, name: FormSettingSuffix): Promise<SettingChange> {
  if (ctx.settings.environmentForm(formId)[name] !== "") return { ok: false, code: "setting_set_by_environment" };
  const [deleted] = await ctx.db.batch([
    deleteSettingStatement(ctx.db, formId, name),
    auditStatement(ctx.db, {
      ...audit(ctx),
      action: "form.setting",
      target: formId,
      detail: { setting: name, change: "cleared" },
      ifChanged: true,
    }),
  ]);
  forgetFormCatalog();
  if (isGeneratedSetting(name)) await tellLocalSink(ctx.settings.localSink, formId, "");
  return deleted.results.length > 0 ? { ok: true } : { ok: false, code: "not_found" };
}

/**
 * Generates the setting's secret, or with `pair` an ed25519 key pair kept sealed (ADR 120), and returns what
 * is shown once; the old one keeps signing for SECRET_OVERLAP_MS. D1 errors throw.
 */
export async function rotateSecret(
  ctx: DestinationsContext,
  formId: string,
  name: FormSettingSuffix,
  pair = false,
): Promise<SettingChange<{ secret: string; rotated: boolean; publicKey: boolean }>> {
  const setting = settingSpec(name)?.setting;
  const generate = pair ? setting?.generatePair : setting?.generate;
  if (!setting || !generate) return { ok: false, code: "not_found" };
  const refused = await refuseUnlessWritable(ctx, formId, name);
  if (refused) return refused;
  const opened = await keys(ctx.settings);
  const stored = await openGeneratedSecrets(ctx, opened, formId, name);
  const current = stored?.secrets.find((s) => s.until === null)?.secret;
  const made = pair ? await setting.generatePair!() : { secret: setting.generate!(), publicKey: null };
  const secret = made.secret;
  const secrets = { secrets: [{ secret, until: null }, ...(current ? [{ secret: current, until: ctx.nowMs + SECRET_OVERLAP_MS }] : [])] };
  const sealed = await sealSetting(opened[0], formId, name, encodeGeneratedSecrets(secrets));
  await writeGeneratedSecret(ctx, formId, name, sealed, `${current ? "rotated" : "generated"}${pair ? " (key pair)" : ""}`);
  await tellLocalSink(ctx.settings.localSink, formId, signingSecrets(secrets, ctx.nowMs));
  return { ok: true, secret: made.publicKey ?? secret, rotated: Boolean(current), publicKey: made.publicKey !== null };
}

/** Stops the rotated-out secret of a generated setting signing now, before its overlap ends. D1 errors throw. */
export async function retirePreviousSecret(ctx: DestinationsContext, formId: string, name: FormSettingSuffix): Promise<SettingChange> {
  if (!isGeneratedSetting(name)) return { ok: false, code: "not_found" };
  const refused = await refuseUnlessWritable(ctx, formId, name);
  if (refused) return refused;
  const opened = await keys(ctx.settings);
  const secrets = await openGeneratedSecrets(ctx, opened, formId, name);
  const current = secrets?.secrets.filter((s) => s.until === null) ?? [];
  if (!secrets || current.length === 0 || signingSecrets(secrets, ctx.nowMs) === current[0].secret) return { ok: false, code: "not_found" };
  const sealed = await sealSetting(opened[0], formId, name, encodeGeneratedSecrets({ secrets: current }));
  await writeGeneratedSecret(ctx, formId, name, sealed, "retired previous");
  await tellLocalSink(ctx.settings.localSink, formId, current[0].secret);
  return { ok: true };
}

/** The console's stored secrets of a generated setting; null when unset or unreadable. D1 errors throw. */
async function openGeneratedSecrets(ctx: DestinationsContext, opened: SealingKey[], formId: string, name: FormSettingSuffix) {
  const row = (await listSettingRows(ctx.db, formId)).find((r) => r.name === name);
  const plain = row ? await open(opened, row.value, settingContext(formId, name)) : null;
  return plain ? decodeGeneratedSecrets(plain) : null;
}

/** The sealed secrets and their audit line in one batch; this isolate reads them at once, others within ADR 045's bound. */
async function writeGeneratedSecret(
  ctx: DestinationsContext,
  formId: string,
  name: FormSettingSuffix,
  sealed: string,
  change: string,
): Promise<void> {
  await ctx.db.batch([
    putSettingStatement(ctx.db, formId, name, sealed, ctx.nowMs),
    auditStatement(ctx.db, { ...audit(ctx), action: "form.setting", target: formId, detail: { setting: name, change } }),
  ]);
  forgetFormCatalog();
}

function audit(ctx: DestinationsContext) {
  return { user: ctx.user, request: ctx.request, nowMs: ctx.nowMs };
}

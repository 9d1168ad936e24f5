import { loadFormCatalog, type FormCatalog, type LiveForm } from "~/lib/forms/catalog.server";
import { localSinkSettings } from "~/lib/settings/local-sink.server";
import { withConsoleFormSettings, type Settings } from "~/lib/settings/settings.server";

// The one way routes and jobs find a form by id: the isolate's catalog, files and console forms alike.

export interface FormsContext {
  cloudflare: { env: { DB: D1Database }; ctx?: { waitUntil(promise: Promise<unknown>): void } };
  settings: Settings;
  now?: () => number;
}

/** This request's catalog. Never throws (without D1 it is `incomplete`). */
export function formCatalog(context: FormsContext, nowMs = (context.now ?? Date.now)()): Promise<FormCatalog> {
  const { cloudflare, settings } = context;
  const ctx = cloudflare.ctx;
  return loadFormCatalog({
    db: cloudflare.env.DB,
    encryptionKeys: settings.encryptionKeys,
    nowMs,
    waitUntil: ctx ? (promise) => ctx.waitUntil(promise) : undefined,
  });
}

export type FormLookup = { ok: true; live: LiveForm; catalog: FormCatalog } | { ok: false; code: "form_not_found" | "storage_unavailable" };

/** Finds a live form (archived ones included) by id. Never throws. */
export async function findForm(context: FormsContext, id: string | undefined, nowMs = (context.now ?? Date.now)()): Promise<FormLookup> {
  const catalog = await formCatalog(context, nowMs);
  const live = id === undefined ? undefined : catalog.forms.get(id);
  if (live) return { ok: true, live, catalog };
  return { ok: false, code: catalog.incomplete ? "storage_unavailable" : "form_not_found" };
}

/** The form settings with the console's embed sites layered in: what a page view needs, without every destination's. */
export function catalogFormSettings(settings: Settings, catalog: FormCatalog): Settings["forms"] {
  return { ...settings.forms, consoleEmbeds: catalog.embeds };
}

/** The settings with the console's form settings layered under the environment's, and the local sink under `npm start`. */
export function catalogSettings(settings: Settings, catalog: FormCatalog): Settings {
  const sink = settings.localSink;
  const layered = withConsoleFormSettings(settings, (formId) => {
    const own = catalog.settings.get(formId);
    return sink && catalog.forms.get(formId)?.source === "console" ? { ...localSinkSettings(sink, formId), ...own } : own;
  });
  return { ...layered, forms: catalogFormSettings(layered, catalog) };
}

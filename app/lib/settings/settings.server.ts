import { z } from "zod";
import { readAdminConfig, type AdminConfig } from "~/lib/settings/admin.server";
import { checkDestinationSettings, readSiteWideSettings } from "~/lib/settings/destination-problems";
import { FORM_SETTING_SUFFIXES, type FormSettingSuffix } from "~/lib/destinations/registry";
import { readFormSettings, type FormSettings } from "~/lib/settings/form-guards.server";
import { parsePlan, type Plan } from "~/lib/platform/budget.server";
import { readLocalSink, type LocalSink } from "~/lib/settings/local-sink.server";
import type { SettingProblem } from "~/lib/settings/setting-problem";
import { readSiteSettings, type SiteSettings } from "~/lib/settings/site.server";
import { readTurnstileSettings, type TurnstileSettings } from "~/lib/settings/turnstile.server";
import { readUploadSettings, type UploadSettings } from "~/lib/settings/uploads.server";

// Every setting, parsed once per environment into one typed object (settingsOf). A form's settings are named
// `<FORM_ID>_<SUFFIX>`; a bad value falls back to a safe default and becomes a problem naming it, never an outage.

/** The shortest SETTINGS_ENCRYPTION_KEY value accepted: 32 characters, about 190 bits when random. */
export const MIN_ENCRYPTION_KEY_LENGTH = 32;

export { FORM_SETTING_SUFFIXES, type FormSettingSuffix };

/** The one place a form setting's name is made: `contact` + `X_URL` → `CONTACT_X_URL`. */
export function formSettingName(formId: string, suffix: FormSettingSuffix): string {
  return `${formId.toUpperCase().replaceAll("-", "_")}_${suffix}`;
}

/** Two forms' settings that would be one variable: `name` is `formId`'s `suffix` and `otherFormId`'s `otherSuffix`. */
export interface SettingNameClash {
  name: string;
  suffix: FormSettingSuffix;
  otherFormId: string;
  otherSuffix: FormSettingSuffix;
}

/** The shorter form id whose settings `formId`'s would also be (`a-x`'s `URL` is `a`'s `X_URL`); null when none can be. */
export function findSettingNameClash(formId: string): SettingNameClash | null {
  for (const suffix of FORM_SETTING_SUFFIXES) {
    const name = formSettingName(formId, suffix);
    for (const otherSuffix of FORM_SETTING_SUFFIXES) {
      if (otherSuffix.length <= suffix.length || !name.endsWith(`_${otherSuffix}`)) continue;
      const otherFormId = name
        .slice(0, -otherSuffix.length - 1)
        .toLowerCase()
        .replaceAll("_", "-");
      if (otherFormId) return { name, suffix, otherFormId, otherSuffix };
    }
  }
  return null;
}

/** One form's own settings, trimmed; "" where unset. Checked by the destination that uses them. */
export type FormEnvSettings = Readonly<Record<FormSettingSuffix, string>>;

export interface Settings {
  turnstile: TurnstileSettings;
  forms: FormSettings;
  admin: AdminConfig;
  site: SiteSettings;
  uploads: UploadSettings;
  /** Local dev only: plain http to loopback hosts is allowed for webhook-style destinations. */
  allowLoopbackHttp: boolean;
  /** Local dev only (LOCAL_DRAIN_BODIES): the rest of a body the app left unread is read before answering (ADR 098). */
  drainUnreadBodies: boolean;
  /** `npm start` only: the local sink console forms deliver to while their destinations are unset. */
  localSink: LocalSink | null;
  /** EMAIL_FROM; null when unset or invalid. */
  emailFrom: string | null;
  /** PUBLIC_URL, for links in notifications; null when unset. */
  publicUrl: string | null;
  /** SETTINGS_ENCRYPTION_KEY's values: the first seals, all open; empty when unset or any is too short. */
  encryptionKeys: readonly string[];
  /** CLOUDFLARE_PLAN: whose per-invocation limits every looping job keeps to (platform/budget.server.ts). */
  plan: Plan;
  /** A form's settings: the environment's where set, else the console's (withConsoleFormSettings). */
  form(formId: string): FormEnvSettings;
  /** Only the environment's values of a form's settings: what wins over the console (ADR 041). */
  environmentForm(formId: string): FormEnvSettings;
  /** Site-wide stand-ins for form settings, by suffix, from the environment only (ADR 097). */
  siteWide: Readonly<Partial<Record<FormSettingSuffix, string>>>;
  problems: readonly SettingProblem[];
}

/** The site-wide variables Gatepost reads: keys of Env, so a typo is a type error. */
type SiteVariable = keyof Env & string;

export type RawEnv = object;

const EmailAddressSchema = z.email({ pattern: z.regexes.html5Email });
const HttpOriginSchema = z.url({ protocol: /^https?$/ }).transform((value) => new URL(value).origin);

function raw(env: RawEnv, name: string): string {
  // Form settings follow the naming convention, so they are not keys of the generated Env.
  const value = (env as Readonly<Record<string, unknown>>)[name];
  return typeof value === "string" ? value.trim() : "";
}

/** Reads one optional site-wide value through `schema`; a bad one becomes a problem and null. */
function optional<T>(env: RawEnv, name: SiteVariable, schema: z.ZodType<T>, problems: SettingProblem[], expected: string): T | null {
  const value = raw(env, name);
  if (value === "") return null;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  problems.push({ variable: name, message: `${name} must be ${expected} (it is ${JSON.stringify(value.slice(0, 80))})` });
  return null;
}

// Parsed once per env object and isolate (ADR 053): the Worker gets the same immutable env on every request.
const parsedByEnv = new WeakMap<RawEnv, Settings>();

/** parseSettings(env), parsed once per env object: what the Worker's requests and cron runs use. */
export function settingsOf(env: RawEnv): Settings {
  let settings = parsedByEnv.get(env);
  if (!settings) {
    // Frozen, so a caller that changed the shared object would throw instead of changing it for others.
    settings = freezeDeep(parseSettings(env));
    parsedByEnv.set(env, settings);
  }
  return settings;
}

function freezeDeep<T>(value: T): T {
  if (typeof value === "object" && value !== null && (Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype)) {
    for (const inner of Object.values(value)) freezeDeep(inner);
    Object.freeze(value);
  }
  return value;
}

/** Parses every setting. Never throws: bad values are reported in `problems`, never silently used. */
export function parseSettings(env: RawEnv): Settings {
  const problems: SettingProblem[] = [];
  const turnstile = readTurnstileSettings(env as Partial<Env>);
  const forms = readFormSettings(env as Partial<Env>, problems);
  const admin = readAdminConfig(env as Partial<Env>);
  for (const message of admin.problems) {
    const variable = /[A-Z][A-Z0-9_]{3,}/.exec(message)?.[0] ?? "ADMIN_PASSWORD_HASH";
    if (!message.startsWith("No password is configured")) problems.push({ variable, message });
  }
  const loopback = raw(env, "ALLOW_LOOPBACK_WEBHOOKS");
  if (loopback !== "" && loopback !== "true") {
    problems.push({ variable: "ALLOW_LOOPBACK_WEBHOOKS", message: 'ALLOW_LOOPBACK_WEBHOOKS is either "true" (local dev only) or empty' });
  }
  const drain = raw(env, "LOCAL_DRAIN_BODIES");
  if (drain !== "" && drain !== "true") {
    problems.push({ variable: "LOCAL_DRAIN_BODIES", message: 'LOCAL_DRAIN_BODIES is either "true" (local dev only) or empty' });
  }
  const emailFrom = optional(env, "EMAIL_FROM", EmailAddressSchema, problems, "one e-mail address, e.g. forms@example.org");
  const publicUrl = optional(env, "PUBLIC_URL", HttpOriginSchema, problems, "an http(s) origin, e.g. https://forms.example.org");
  const site = readSiteSettings(env as Partial<Env>, problems);
  const uploads = readUploadSettings(env as Partial<Env>, problems);
  const keys = raw(env, "SETTINGS_ENCRYPTION_KEY").split(/\s+/).filter(Boolean);
  const encryptionKeys = keys.every((key) => key.length >= MIN_ENCRYPTION_KEY_LENGTH) ? keys : [];
  if (encryptionKeys.length !== keys.length) {
    problems.push({
      variable: "SETTINGS_ENCRYPTION_KEY",
      message: `SETTINGS_ENCRYPTION_KEY must be at least ${MIN_ENCRYPTION_KEY_LENGTH} random characters (several, space-separated, while rotating); destinations set in the console are not used until it is`,
    });
  }
  const plan = parsePlan(raw(env, "CLOUDFLARE_PLAN"));
  if (plan === null) {
    problems.push({
      variable: "CLOUDFLARE_PLAN",
      message: 'CLOUDFLARE_PLAN is "free" (the default) or "paid"; the Free plan\'s limits are kept until it is',
    });
  }
  problems.push(...checkDestinationSettings(env, { allowLoopbackHttp: loopback === "true", emailFrom }));
  const localSink = readLocalSink(env, loopback === "true", problems);
  const siteWide = readSiteWideSettings((name) => raw(env, name), { allowLoopbackHttp: loopback === "true" }, problems);
  const perForm = new Map<string, FormEnvSettings>();
  const environmentForm = (formId: string) => {
    let values = perForm.get(formId);
    if (!values) {
      values = Object.fromEntries(
        FORM_SETTING_SUFFIXES.map((suffix) => [suffix, raw(env, formSettingName(formId, suffix))]),
      ) as FormEnvSettings;
      perForm.set(formId, values);
    }
    return values;
  };
  return {
    turnstile,
    forms,
    admin,
    site,
    uploads,
    allowLoopbackHttp: loopback === "true",
    drainUnreadBodies: drain === "true",
    localSink,
    emailFrom,
    publicUrl,
    encryptionKeys,
    plan: plan ?? "free",
    form: environmentForm,
    environmentForm,
    siteWide,
    problems,
  };
}

/** `settings` with the console's form settings layered under the environment's, which win (ADR 041). */
export function withConsoleFormSettings(
  settings: Settings,
  consoleValues: (formId: string) => Partial<Record<FormSettingSuffix, string>> | undefined,
): Settings {
  const layered = new Map<string, FormEnvSettings>();
  return {
    ...settings,
    form(formId) {
      let values = layered.get(formId);
      if (!values) {
        const environment = settings.environmentForm(formId);
        const own = consoleValues(formId);
        // A form the console set nothing for (every form file's, most posts) takes the environment's as they are.
        values =
          own === undefined || Object.keys(own).length === 0
            ? environment
            : (Object.fromEntries(
                FORM_SETTING_SUFFIXES.map((suffix) => [suffix, environment[suffix] || own[suffix] || ""]),
              ) as FormEnvSettings);
        layered.set(formId, values);
      }
      return values;
    },
  };
}

import type { FormDef, RateLimits } from "~/forms/schema";
import { exactOrigins, isExactOrigin } from "~/lib/http/origin";
import type { SettingProblem } from "~/lib/settings/setting-problem";

// The forms' abuse controls have safe defaults, except the signing secret: without it Gatepost's own pages
// cannot prove their timestamps, so their posts are refused (fail closed).

export const DEFAULT_RATE_LIMITS: RateLimits = { perMinute: 5, perDay: 50 };
export const DEFAULT_MIN_FILL_SECONDS = 3;
/** A shorter secret is treated as missing: an HMAC key that small can be guessed offline. */
export const MIN_SIGNING_SECRET_LENGTH = 32;

export interface FormSettings {
  signingSecret: string | undefined;
  minFillMs: number;
  defaultRateLimits: RateLimits;
  extraOrigins: ReadonlyMap<string, readonly string[]>;
  consoleEmbeds: ReadonlyMap<string, ConsoleEmbedSites>;
}

export interface ConsoleEmbedSites {
  origins: readonly string[];
  hostnames: readonly string[];
}

type FormEnv = Partial<
  Pick<
    Env,
    "FORM_SIGNING_SECRET" | "FORM_MIN_FILL_SECONDS" | "FORM_RATE_LIMIT_PER_MINUTE" | "FORM_RATE_LIMIT_PER_DAY" | "FORM_ALLOWED_ORIGINS"
  >
>;

/** Reads the forms' settings. Never throws: a junk value keeps its default and is added to `problems`. */
export function readFormSettings(env: FormEnv, problems: SettingProblem[] = []): FormSettings {
  const secret = text(env.FORM_SIGNING_SECRET);
  if (secret !== "" && secret.length < MIN_SIGNING_SECRET_LENGTH) {
    problems.push({
      variable: "FORM_SIGNING_SECRET",
      message: `FORM_SIGNING_SECRET must be at least ${MIN_SIGNING_SECRET_LENGTH} characters; posts from Gatepost's own pages are refused until it is`,
    });
  }
  const number = (name: keyof FormEnv, fallback: number, min: number) => {
    const value = count(env[name], fallback, min);
    if (value === fallback && text(env[name]) !== "" && Number(text(env[name])) !== fallback) {
      problems.push({ variable: name, message: `${name} must be a whole number of at least ${min}; using ${fallback}` });
    }
    return value;
  };
  return {
    signingSecret: secret.length >= MIN_SIGNING_SECRET_LENGTH ? secret : undefined,
    minFillMs: 1000 * number("FORM_MIN_FILL_SECONDS", DEFAULT_MIN_FILL_SECONDS, 0),
    defaultRateLimits: {
      perMinute: number("FORM_RATE_LIMIT_PER_MINUTE", DEFAULT_RATE_LIMITS.perMinute, 1),
      perDay: number("FORM_RATE_LIMIT_PER_DAY", DEFAULT_RATE_LIMITS.perDay, 1),
    },
    extraOrigins: parseExtraOrigins(text(env.FORM_ALLOWED_ORIGINS), problems),
    consoleEmbeds: new Map(),
  };
}

/** The form's own limits win; otherwise the deployment's defaults. */
export function rateLimitsFor(form: FormDef, settings: FormSettings): RateLimits {
  return form.rateLimit ?? settings.defaultRateLimits;
}

/** The origins that may post and frame: the definition's plus FORM_ALLOWED_ORIGINS', else the console's (ADR 076, 108). */
export function allowedOriginsFor(form: FormDef, settings: FormSettings): readonly string[] {
  const added = settings.extraOrigins.get(form.id) ?? settings.consoleEmbeds.get(form.id)?.origins ?? [];
  return exactOrigins([...form.allowedOrigins, ...added]);
}

/** The hostnames the console lets a form's tokens come from besides Gatepost's own (none when unset). */
export function embedHostnamesFor(form: Pick<FormDef, "id">, settings: FormSettings): readonly string[] {
  return settings.consoleEmbeds.get(form.id)?.hostnames ?? [];
}

/** "contact=https://a.example,https://b.example newsletter=…"; what is not an exact origin is ignored and counted in `problems`. */
export function parseExtraOrigins(value: string, problems: SettingProblem[] = []): Map<string, string[]> {
  const map = new Map<string, string[]>();
  let ignored = 0;
  for (const entry of value.split(/\s+/).filter(Boolean)) {
    const [formId, list = ""] = entry.split("=", 2);
    const items = list.split(",").filter(Boolean);
    const origins = exactOrigins(items);
    ignored += items.filter((item) => !isExactOrigin(item)).length + (items.length === 0 ? 1 : 0);
    if (formId && origins.length > 0) map.set(formId, [...new Set([...(map.get(formId) ?? []), ...origins])]);
  }
  if (ignored > 0) {
    problems.push({
      variable: "FORM_ALLOWED_ORIGINS",
      message: `FORM_ALLOWED_ORIGINS has ${ignored} value(s) that are not form=scheme://host[:port],…; they are ignored`,
    });
  }
  return map;
}

function count(value: unknown, fallback: number, min: number): number {
  const n = Number(text(value));
  return text(value) !== "" && Number.isInteger(n) && n >= min ? n : fallback;
}

function text(value: unknown): string {
  return typeof value === "string" ? value.trim() : "";
}

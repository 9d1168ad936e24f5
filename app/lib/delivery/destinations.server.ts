import type { FormDef, WebhookDestination } from "~/forms/schema";
import { isLoopbackHost } from "~/lib/http/loopback";
import { parseWebhookSecrets } from "~/lib/delivery/webhook-signature.server";

// Where a form's submissions go. Each destination names two env variables (URL and secret), so
// destinations come from config and never from a request. A destination whose URL variable is empty
// is "not configured": its submissions are simply stored.

/** The only switch that lets plain http reach loopback hosts; `npm start`, tests and bench set it. */
export const LOOPBACK_SWITCH = "ALLOW_LOOPBACK_WEBHOOKS";

export interface ResolvedDestination {
  name: string;
  url: string;
  keys: Uint8Array<ArrayBuffer>[];
}

export type DestinationCheck = { ok: true; destination: ResolvedDestination } | { ok: false; reason: string };

type LooseEnv = Partial<Record<string, unknown>>;

function readVar(env: LooseEnv, name: string): string {
  const value = env[name];
  return typeof value === "string" ? value.trim() : "";
}

/** True only when the local-dev switch is exactly "true". */
export function allowsLoopbackHttp(env: LooseEnv): boolean {
  return readVar(env, LOOPBACK_SWITCH) === "true";
}

/** https anywhere; http only to a loopback host and only with the local-dev switch on. */
export function isAllowedWebhookUrl(raw: string, allowLoopbackHttp: boolean): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  if (url.protocol === "https:") return true;
  return allowLoopbackHttp && url.protocol === "http:" && isLoopbackHost(url.hostname);
}

/** The destinations of `form` whose URL variable is set. Misconfigured ones are included on purpose. */
export function configuredDestinations(env: LooseEnv, form: FormDef): WebhookDestination[] {
  return form.destinations.filter((destination) => readVar(env, destination.urlEnv) !== "");
}

/** Reads and checks one destination's URL and secrets at delivery time. Never throws. */
export function resolveDestination(env: LooseEnv, form: FormDef, name: string): DestinationCheck {
  const destination = form.destinations.find((d) => d.name === name);
  if (!destination) return { ok: false, reason: `form ${form.id} has no destination "${name}"` };
  const url = readVar(env, destination.urlEnv);
  if (!url) return { ok: false, reason: `${destination.urlEnv} is not set` };
  if (!isAllowedWebhookUrl(url, allowsLoopbackHttp(env))) {
    return { ok: false, reason: `${destination.urlEnv} must be an https URL (plain http only to loopback in local dev)` };
  }
  const secrets = parseWebhookSecrets(readVar(env, destination.secretEnv));
  if (!secrets.ok) return { ok: false, reason: `${destination.secretEnv}: ${secrets.reason}` };
  return { ok: true, destination: { name, url, keys: secrets.keys } };
}

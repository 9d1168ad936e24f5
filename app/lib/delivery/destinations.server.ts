import type { Destination, FormDef } from "~/forms/schema";
import { isLoopbackHost } from "~/lib/http/loopback";
import { parseWebhookSecrets } from "~/lib/delivery/webhook-signature.server";
import { formSettingName, type Settings } from "~/lib/settings/settings.server";

// Where a form's submissions go. A form lists destination kinds; their URLs and secrets come from the
// form's settings (CONTACT_WEBHOOK_URL, …, named after the form id), never from a request. A
// destination whose URL setting is empty is "not configured": its submissions are simply stored.

/** The only switch that lets plain http reach loopback hosts; `npm start`, tests and bench set it. */
export const LOOPBACK_SWITCH = "ALLOW_LOOPBACK_WEBHOOKS";

export interface ResolvedDestination {
  name: string;
  url: string;
  keys: Uint8Array<ArrayBuffer>[];
}

export type DestinationCheck = { ok: true; destination: ResolvedDestination } | { ok: false; reason: string };

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

/** The destination's name in the outbox: its kind (a form has at most one of each). */
export function destinationName(destination: Destination): string {
  return destination.kind;
}

/** The destinations of `form` whose URL setting is set. Misconfigured ones are included on purpose. */
export function configuredDestinations(settings: Settings, form: FormDef): Destination[] {
  const own = settings.form(form.id);
  return form.destinations.filter((destination) => destination.kind === "webhook" && own.WEBHOOK_URL !== "");
}

/** Reads and checks one destination's URL and secrets at delivery time. Never throws. */
export function resolveDestination(settings: Settings, form: FormDef, name: string): DestinationCheck {
  const destination = form.destinations.find((d) => destinationName(d) === name);
  if (!destination) return { ok: false, reason: `form ${form.id} has no destination "${name}"` };
  const own = settings.form(form.id);
  const urlVar = formSettingName(form.id, "WEBHOOK_URL");
  const secretVar = formSettingName(form.id, "WEBHOOK_SECRET");
  const url = own.WEBHOOK_URL;
  if (!url) return { ok: false, reason: `${urlVar} is not set` };
  if (!isAllowedWebhookUrl(url, settings.allowLoopbackHttp)) {
    return { ok: false, reason: `${urlVar} must be an https URL (plain http only to loopback in local dev)` };
  }
  const secrets = parseWebhookSecrets(own.WEBHOOK_SECRET);
  if (!secrets.ok) return { ok: false, reason: `${secretVar}: ${secrets.reason}` };
  return { ok: true, destination: { name, url, keys: secrets.keys } };
}

import type { Destination, FormDef } from "~/forms/schema";
import { senderOf } from "~/lib/destinations/senders.server";
import { settingVariable, type ResolvedDestination } from "~/lib/destinations/sender.server";
import { kindSpec } from "~/lib/destinations/registry";
import type { Settings } from "~/lib/settings/settings.server";

// Where a form's submissions go: kinds from the form, URLs, addresses and secrets from its settings,
// never from a request. An empty setting gets no outbox row; a broken one gets a row that is held.
// Nothing here knows a kind: each one's module does (ADR 090).

export type { ResolvedDestination };

export type DestinationCheck = { ok: true; destination: ResolvedDestination } | { ok: false; reason: string };

/** The destination's name in the outbox: its kind (a form has at most one of each). */
export function destinationName(destination: Destination): string {
  return destination.kind;
}

function isConfigured(settings: Settings, form: FormDef, destination: Destination): boolean {
  const own = settings.form(form.id);
  const spec = kindSpec(destination.kind);
  const applies = senderOf(destination.kind)?.applies ?? (() => true);
  return spec !== undefined && spec.isOn((suffix) => own[suffix as keyof typeof own] ?? "") && applies(form);
}

/** The destinations of `form` whose setting is set. Misconfigured ones are included on purpose. */
export function configuredDestinations(settings: Settings, form: FormDef): Destination[] {
  return form.destinations.filter((destination) => isConfigured(settings, form, destination));
}

/** Reads and checks one destination's settings at delivery time. Never throws. */
export function resolveDestination(settings: Settings, form: FormDef, name: string): DestinationCheck {
  const destination = form.destinations.find((d) => destinationName(d) === name);
  if (!destination) return { ok: false, reason: `form ${form.id} has no destination "${name}"` };
  const sender = senderOf(destination.kind);
  if (!sender) return { ok: false, reason: `no destination kind is called "${destination.kind}"` };
  return sender.resolve({ settings, form, destination, name, own: settings.form(form.id), variable: settingVariable(form.id) });
}

import type { Destination, FieldDef, FormDef } from "~/forms/schema";
import { parseWebhookSecrets } from "~/lib/delivery/webhook-signature.server";
import { isConfirmationOn, isEmailAddress, parseEmailList, webhookUrlProblem } from "~/lib/settings/destination-settings.server";
import { formSettingName, type Settings } from "~/lib/settings/settings.server";

// Where a form's submissions go: kinds from the form, URLs, addresses and secrets from its settings,
// never from a request. An empty setting gets no outbox row; a broken one gets a row that is held.

export type ResolvedDestination =
  | { kind: "webhook"; name: string; url: string; keys: Uint8Array<ArrayBuffer>[] }
  | { kind: "slack" | "discord"; name: string; url: string }
  | { kind: "email"; name: string; from: string; to: string[] }
  | { kind: "confirmation"; name: string; from: string; field: string; subject: string; text: string };

export type DestinationCheck = { ok: true; destination: ResolvedDestination } | { ok: false; reason: string };

/** The destination's name in the outbox: its kind (a form has at most one of each). */
export function destinationName(destination: Destination): string {
  return destination.kind;
}

/** The field a confirmation goes to: the form's first e-mail field. */
export function confirmationField(form: FormDef): FieldDef | undefined {
  return form.fields.find((field) => field.type === "email");
}

function isConfigured(settings: Settings, form: FormDef, destination: Destination): boolean {
  const own = settings.form(form.id);
  switch (destination.kind) {
    case "webhook":
      return own.WEBHOOK_URL !== "";
    case "email":
      return own.EMAIL_TO !== "";
    case "slack":
      return own.SLACK_WEBHOOK_URL !== "";
    case "discord":
      return own.DISCORD_WEBHOOK_URL !== "";
    case "confirmation":
      return isConfirmationOn(own.CONFIRMATION) && confirmationField(form) !== undefined;
  }
}

/** The destinations of `form` whose setting is set. Misconfigured ones are included on purpose. */
export function configuredDestinations(settings: Settings, form: FormDef): Destination[] {
  return form.destinations.filter((destination) => isConfigured(settings, form, destination));
}

/** Reads and checks one destination's settings at delivery time. Never throws. */
export function resolveDestination(settings: Settings, form: FormDef, name: string): DestinationCheck {
  const destination = form.destinations.find((d) => destinationName(d) === name);
  if (!destination) return { ok: false, reason: `form ${form.id} has no destination "${name}"` };
  const own = settings.form(form.id);
  const variable = (suffix: Parameters<typeof formSettingName>[1]) => formSettingName(form.id, suffix);
  switch (destination.kind) {
    case "webhook": {
      const url = own.WEBHOOK_URL;
      if (!url) return { ok: false, reason: `${variable("WEBHOOK_URL")} is not set` };
      const problem = webhookUrlProblem(url, settings.allowLoopbackHttp);
      if (problem) return { ok: false, reason: `${variable("WEBHOOK_URL")} ${problem}` };
      const secrets = parseWebhookSecrets(own.WEBHOOK_SECRET);
      if (!secrets.ok) return { ok: false, reason: `${variable("WEBHOOK_SECRET")}: ${secrets.reason}` };
      return { ok: true, destination: { kind: "webhook", name, url, keys: secrets.keys } };
    }
    case "slack":
    case "discord": {
      const suffix = destination.kind === "slack" ? "SLACK_WEBHOOK_URL" : "DISCORD_WEBHOOK_URL";
      const url = own[suffix];
      if (!url) return { ok: false, reason: `${variable(suffix)} is not set` };
      const problem = webhookUrlProblem(url, settings.allowLoopbackHttp);
      if (problem) return { ok: false, reason: `${variable(suffix)} ${problem}` };
      return { ok: true, destination: { kind: destination.kind, name, url } };
    }
    case "email": {
      if (!settings.emailFrom) return { ok: false, reason: "EMAIL_FROM is not set (or not an address)" };
      const to = parseEmailList(own.EMAIL_TO);
      if (!to) return { ok: false, reason: `${variable("EMAIL_TO")} must be one or more e-mail addresses` };
      return { ok: true, destination: { kind: "email", name, from: settings.emailFrom, to } };
    }
    case "confirmation": {
      if (!isConfirmationOn(own.CONFIRMATION)) return { ok: false, reason: `${variable("CONFIRMATION")} is not "on"` };
      if (!settings.emailFrom) return { ok: false, reason: "EMAIL_FROM is not set (or not an address)" };
      const field = confirmationField(form);
      if (!field) return { ok: false, reason: `form ${form.id} has no e-mail field to confirm to` };
      const { subject, text } = destination;
      return { ok: true, destination: { kind: "confirmation", name, from: settings.emailFrom, field: field.name, subject, text } };
    }
  }
}

/** The submitter's address from the form's first e-mail field, when it is a valid one; else null. */
export function submitterAddress(form: FormDef, fields: Readonly<Record<string, unknown>>): string | null {
  const field = confirmationField(form);
  const value = field ? fields[field.name] : null;
  return typeof value === "string" && isEmailAddress(value.trim()) ? value.trim() : null;
}

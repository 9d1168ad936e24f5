import type { Destination, DestinationKind, FormDef } from "~/forms/schema";
import type { AttemptRecord } from "~/lib/sending/attempt.server";
import { linkedFiles } from "~/lib/sending/linked-files.server";
import { describeSubmission, type MessageContent } from "~/lib/sending/message-content.server";
import type { Mailer } from "~/lib/sending/mailer.server";
import { formSettingName, type FormEnvSettings, type FormSettingSuffix, type Settings } from "~/lib/settings/settings.server";
import type { ConfirmationRow as GatedRow, ConfirmationStatements as GatedStatements } from "~/lib/storage/confirmation-limits.server";
import type { Claim } from "~/lib/storage/deliveries.server";
import type { Prune } from "~/lib/storage/sql.server";
import type { StoredSubmission } from "~/lib/storage/submissions.server";
import { webhookUrlProblem } from "~/lib/destinations/checks";

// The sending half of a destination kind (ADR 090, 114): each <kind>/sender.server.ts exports one as `sender`;
// senders.server.ts finds them. The other half is <kind>/spec.ts.

export interface ResolvedDestination {
  kind: DestinationKind;
  name: string;
}

export type Resolved<T extends ResolvedDestination> = { ok: true; destination: T } | { ok: false; reason: string };

export interface ResolveInput<D extends Destination = Destination> {
  settings: Settings;
  form: FormDef;
  destination: D;
  name: string;
  own: FormEnvSettings;
  variable(suffix: FormSettingSuffix): string;
}

export interface KindAttempt {
  db: D1Database;
  settings: Settings;
  form: FormDef;
  claim: Claim;
  submission: StoredSubmission;
  timeoutMs: number;
  fetch?: typeof fetch;
  /** null where no send_email binding is at hand: e-mail kinds are then held. */
  mailer: Mailer | null;
  nowMs: number;
}

export interface KindSender<T extends ResolvedDestination = ResolvedDestination> {
  kind: DestinationKind;
  applies?(form: FormDef): boolean;
  /** Reads and checks its settings at attempt time, so a fixed setting heals queued rows. Never throws. */
  resolve(input: ResolveInput): Resolved<T>;
  /** Sends once. Never throws except when D1 fails. */
  attempt(destination: T, input: KindAttempt): Promise<AttemptRecord>;
  /** It reaches the form's owner (the owner's e-mail): their sender, addresses and mailer, or null when off or broken. */
  ownerMail?(settings: Settings, form: FormDef, binding: Mailer | null): { from: string; to: string[]; mailer: Mailer } | null;
  /** Held to limits inside the accept batch (ADR 025): what the batch needs for one submission, or null. Never throws. */
  gate?(settings: Settings, form: FormDef, fields: Readonly<Record<string, unknown>>, ip: string | null): Promise<BatchGate | null>;
  stale?(nowMs: number): Prune;
}

/** A kind's limits in the accept batch: its outbox row is replaced by these statements, which decide whether it goes. */
export interface BatchGate {
  kind: DestinationKind;
  statements(db: D1Database, row: GatedRow): GatedStatements;
}

/** Keeps a sender's own destination type inside it, so the registry can hold every kind's. */
export function defineSender<T extends ResolvedDestination>(sender: KindSender<T>): KindSender {
  return sender as unknown as KindSender;
}

/** The resolve input's `variable`: the environment variable of one of the form's settings. */
export function settingVariable(formId: string): (suffix: FormSettingSuffix) => string {
  return (suffix) => formSettingName(formId, suffix);
}

/** A delivery held on its settings: retried once they are fixed, keeping its attempts. */
export function held(detail: string): AttemptRecord {
  return { delivered: false, httpStatus: null, error: "config", detail, latencyMs: 0, excerpt: null };
}

/** A delivery settled without sending anything, with the reason: never shown as delivered (the timeline's "not sent"). */
export function skipped(detail: string): AttemptRecord {
  return { delivered: true, httpStatus: null, error: "skipped", detail: `not sent: ${detail}`, latencyMs: 0, excerpt: null };
}

/** Why e-mail cannot go out yet: EMAIL_FROM is missing. */
export const NO_EMAIL_FROM = "EMAIL_FROM is not set (or not an address)";

/** A URL setting read at attempt time: set, and one Gatepost may POST to (ADR 088). */
export function resolveUrl(input: ResolveInput, suffix: FormSettingSuffix): { ok: true; url: string } | { ok: false; reason: string } {
  const url = input.own[suffix];
  if (!url) return { ok: false, reason: `${input.variable(suffix)} is not set` };
  const problem = webhookUrlProblem(url, input.settings.allowLoopbackHttp);
  return problem ? { ok: false, reason: `${input.variable(suffix)} ${problem}` } : { ok: true, url };
}

/** A service's API base: its stand-in URL setting when set (ADR 088's rules), else `own`; no trailing slash. */
export function resolveApiBase(
  input: ResolveInput,
  suffix: FormSettingSuffix,
  service: string,
): { ok: true; url: string } | { ok: false; reason: string } {
  const url = input.own[suffix] || service;
  const problem = webhookUrlProblem(url, input.settings.allowLoopbackHttp);
  return problem ? { ok: false, reason: `${input.variable(suffix)} ${problem}` } : { ok: true, url: url.replace(/\/$/, "") };
}

/** A kind that POSTs a message about the submission to one URL setting (the chat webhooks). */
export function messageSender(
  kind: DestinationKind,
  suffix: FormSettingSuffix,
  send: (url: string, content: MessageContent, options: { timeoutMs: number; fetch?: typeof fetch }) => Promise<AttemptRecord>,
): KindSender {
  return defineSender<ResolvedDestination & { url: string }>({
    kind,
    resolve(input) {
      const url = resolveUrl(input, suffix);
      return url.ok ? { ok: true, destination: { kind, name: input.name, url: url.url } } : url;
    },
    async attempt(destination, { settings, form, submission, nowMs, timeoutMs, fetch }) {
      const files = await linkedFiles(settings, form, submission, nowMs);
      return send(destination.url, describeSubmission(form, submission, settings.publicUrl, files), { timeoutMs, fetch });
    },
  });
}

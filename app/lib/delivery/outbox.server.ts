import type { Settings } from "~/lib/settings/settings.server";
import type { DestinationKind, FormDef } from "~/forms/schema";
import { configuredDestinations, destinationName } from "~/lib/destinations/configured.server";
import type { BatchGate } from "~/lib/destinations/sender.server";
import type { ErrorCode } from "~/lib/http/errors";
import type { OutboxBatch } from "~/lib/storage/accept-batch.server";
import { storageCodeOf, tryD1 } from "~/lib/storage/d1-failure.server";
import { hookOutboxStatement } from "~/lib/hooks/subscriptions.server";
import { insertDeliveryStatement, type Claim, type Lease } from "~/lib/storage/deliveries.server";
import { requeueDead, requeueSubmission } from "~/lib/storage/delivery-requeue.server";

// One outbox row per (submission, destination) in the submission's own batch (ADR 003); redelivery keeps the webhook-id.

export type RedeliveryResult = { ok: true; requeued: number; keptConfirmations: number } | { ok: false; code: ErrorCode };

/** A new webhook-id. Standard Webhooks ids are opaque; the msg_ prefix follows the spec's examples. */
export function newWebhookId(): string {
  return `msg_${crypto.randomUUID().replaceAll("-", "")}`;
}

/** One INSERT per configured destination of `form`, due at `nowMs`, for the submission's batch. Pure. */
export function outboxStatements(
  db: D1Database,
  settings: Settings,
  form: FormDef,
  submissionId: string,
  nowMs: number,
): D1PreparedStatement[] {
  return plannedClaims(settings, form, submissionId).map((claim) => insertDeliveryStatement(db, claim, nowMs, null));
}

export interface LeasedOutbox extends OutboxBatch {
  statements: D1PreparedStatement[];
  claims: Claim[];
}

/** outboxStatements leased to `owner`, so the accepting request attempts from memory; `gate` holds a confirmation to its limits. */
export function leasedOutbox(
  db: D1Database,
  settings: Settings,
  form: FormDef,
  submissionId: string,
  nowMs: number,
  owner: string,
  leaseMs: number,
  gate: BatchGate | null = null,
  only?: DestinationKind,
): LeasedOutbox {
  const lease: Lease = { owner, untilMs: nowMs + leaseMs };
  const claims = plannedClaims(settings, form, submissionId).filter((claim) => only === undefined || claim.destination === only);
  const limited = gate ? claims.find((claim) => claim.destination === gate.kind) : undefined;
  const deliveries = claims.filter((claim) => claim !== limited).map((claim) => insertDeliveryStatement(db, claim, nowMs, lease));
  const confirmation =
    limited && gate
      ? gate.statements(db, { id: limited.id, destination: limited.destination, submissionId, formId: form.id, nowMs, lease })
      : null;
  // A console test (`only`) goes to one destination: never to the form's subscriptions.
  const hooks = only === undefined ? hookOutboxStatement(db, { formId: form.id, submissionId, nowMs, lease }) : null;
  const statements = [...deliveries, ...(confirmation ? Object.values(confirmation) : []), ...(hooks ? [hooks] : [])];
  return { deliveries, confirmation, hooks, statements, claims };
}

function plannedClaims(settings: Settings, form: FormDef, submissionId: string): Claim[] {
  return configuredDestinations(settings, form).map((destination) => ({
    id: newWebhookId(),
    submissionId,
    formId: form.id,
    destination: destinationName(destination),
    attempts: 0,
  }));
}

/** Re-queues one submission's deliveries. Fails with redelivery_unknown_submission, redelivery_no_destination or storage_unavailable. */
export async function redeliverSubmission(db: D1Database, submissionId: string, nowMs: number): Promise<RedeliveryResult> {
  const done = await tryD1(() => requeueSubmission(db, submissionId, nowMs), { retry: false });
  if (!done.ok) return { ok: false, code: storageCodeOf(done, "redeliverSubmission") };
  const { found, requeued, kept } = done.value;
  if (!found) return { ok: false, code: "redelivery_unknown_submission" };
  if (requeued === 0) return { ok: false, code: "redelivery_no_destination" };
  return { ok: true, requeued, keptConfirmations: kept };
}

/** Re-queues all dead deliveries of one form (the caller knows it exists). Fails with storage_unavailable. */
export async function redeliverDead(db: D1Database, formId: string, nowMs: number): Promise<RedeliveryResult> {
  const done = await tryD1(() => requeueDead(db, formId, nowMs), { retry: false });
  if (!done.ok) return { ok: false, code: storageCodeOf(done, "redeliverDead") };
  return { ok: true, requeued: done.value, keptConfirmations: 0 };
}

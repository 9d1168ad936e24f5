import type { Settings } from "~/lib/settings/settings.server";
import type { DestinationKind, FormDef } from "~/forms/schema";
import { configuredDestinations, destinationName } from "~/lib/delivery/destinations.server";
import type { Claim } from "~/lib/delivery/delivery.server";
import { confirmationStatements, type ConfirmationGate } from "~/lib/delivery/confirmation-limits.server";
import type { ErrorCode } from "~/lib/http/errors";

// The outbox: one `deliveries` row per (submission, destination), written in the same D1 batch as the
// submission so "accepted" always means "queued for every destination" (docs/decisions/003-outbox.md).
// Rows are never deleted here; redelivery puts them back in the queue under the same webhook-id.

/** `keptConfirmations`: confirmations left alone because one went (or was skipped) already. */
export type RedeliveryResult = { ok: true; requeued: number; keptConfirmations: number } | { ok: false; code: ErrorCode };

/** A new webhook-id. Standard Webhooks ids are opaque; the msg_ prefix follows the spec's examples. */
export function newWebhookId(): string {
  return `msg_${crypto.randomUUID().replaceAll("-", "")}`;
}

/**
 * One INSERT per configured destination of `form` (none for a kind whose setting is empty), due at `nowMs`. Put them
 * in the same db.batch as the submission INSERT. Pure: it never touches D1 and never throws.
 */
export function outboxStatements(
  db: D1Database,
  settings: Settings,
  form: FormDef,
  submissionId: string,
  nowMs: number,
): D1PreparedStatement[] {
  return planOutbox(db, settings, form, submissionId, nowMs, null).statements;
}

/**
 * As outboxStatements, but each row is inserted already leased to `owner` for `leaseMs`, and comes
 * back as a claim. The accepting request then makes the first attempt from memory, with no claim
 * and no re-read of the submission; if it never gets to, the drain takes the rows once the lease
 * lapses, exactly as after a drainer that died holding its claim. With `gate`, the confirmation's row
 * is held to its limits in the same batch (confirmation-limits.server.ts).
 */
export function leasedOutbox(
  db: D1Database,
  settings: Settings,
  form: FormDef,
  submissionId: string,
  nowMs: number,
  owner: string,
  leaseMs: number,
  gate: ConfirmationGate | null = null,
  /** Only this destination (a console test), when it is configured. */
  only?: DestinationKind,
): { statements: D1PreparedStatement[]; claims: Claim[] } {
  return planOutbox(db, settings, form, submissionId, nowMs, { owner, untilMs: nowMs + leaseMs }, gate, only);
}

function planOutbox(
  db: D1Database,
  settings: Settings,
  form: FormDef,
  submissionId: string,
  nowMs: number,
  lease: { owner: string; untilMs: number } | null,
  gate: ConfirmationGate | null = null,
  only?: DestinationKind,
): { statements: D1PreparedStatement[]; claims: Claim[] } {
  const createdAt = new Date(nowMs).toISOString();
  const destinations = configuredDestinations(settings, form).filter((d) => only === undefined || d.kind === only);
  const claims = destinations.map((destination) => ({
    id: newWebhookId(),
    submissionId,
    formId: form.id,
    destination: destinationName(destination),
    attempts: 0,
  }));
  const statements = claims.flatMap((claim) =>
    gate && claim.destination === "confirmation"
      ? confirmationStatements(db, { id: claim.id, submissionId, formId: form.id, nowMs, lease }, gate)
      : db
          .prepare(
            // Only beside a stored submission: in the accept batch the submission INSERT is itself guarded
            // (rate limits, idempotency key), and a refused one must leave no outbox row behind.
            `INSERT INTO deliveries (id, submission_id, form_id, destination, status, attempts, next_attempt_at, created_at,
           lease_owner, lease_until)
         SELECT ?1, ?2, ?3, ?4, 'pending', 0, ?5, ?6, ?7, ?8 WHERE EXISTS (SELECT 1 FROM submissions WHERE id = ?2)`,
          )
          .bind(claim.id, submissionId, form.id, claim.destination, nowMs, createdAt, lease?.owner ?? null, lease?.untilMs ?? null),
  );
  return { statements, claims };
}

// Requeueing starts a fresh retry schedule; the attempts log keeps every earlier attempt.
const REQUEUE = `UPDATE deliveries
  SET status = 'pending', attempts = 0, next_attempt_at = ?1, lease_owner = NULL, lease_until = NULL,
      last_error = NULL, delivered_at = NULL`;
// A confirmation that went (or was settled as skipped) is never queued again: the sender was promised
// at most one a day, and a second one days later would only confuse. A dead one never went, so it may
// be queued; the drain's mailbox slot (confirmation.server.ts) still holds it to once per 24 h.
const SETTLED_CONFIRMATION = "destination = 'confirmation' AND status = 'delivered'";

/**
 * Re-queues every delivery of one submission, whatever its status, keeping each webhook-id, except a
 * confirmation that went. Fails with redelivery_unknown_submission, redelivery_no_destination or
 * storage_unavailable.
 */
export async function redeliverSubmission(db: D1Database, submissionId: string, nowMs = Date.now()): Promise<RedeliveryResult> {
  try {
    const [found, requeued, kept] = await db.batch<{ id: string }>([
      db.prepare("SELECT id FROM submissions WHERE id = ?1").bind(submissionId),
      db.prepare(`${REQUEUE} WHERE submission_id = ?2 AND NOT (${SETTLED_CONFIRMATION}) RETURNING id`).bind(nowMs, submissionId),
      db.prepare(`SELECT id FROM deliveries WHERE submission_id = ?1 AND ${SETTLED_CONFIRMATION}`).bind(submissionId),
    ]);
    if (found.results.length === 0) return { ok: false, code: "redelivery_unknown_submission" };
    if (requeued.results.length === 0) return { ok: false, code: "redelivery_no_destination" };
    return { ok: true, requeued: requeued.results.length, keptConfirmations: kept.results.length };
  } catch (error) {
    console.error("redeliverSubmission failed:", error);
    return { ok: false, code: "storage_unavailable" };
  }
}

/** Re-queues all dead deliveries of one form (the caller knows it exists). Fails with storage_unavailable. */
export async function redeliverDead(db: D1Database, formId: string, nowMs = Date.now()): Promise<RedeliveryResult> {
  try {
    const { results } = await db
      .prepare(`${REQUEUE} WHERE form_id = ?2 AND status = 'dead' RETURNING id`)
      .bind(nowMs, formId)
      .all<{ id: string }>();
    return { ok: true, requeued: results.length, keptConfirmations: 0 };
  } catch (error) {
    console.error("redeliverDead failed:", error);
    return { ok: false, code: "storage_unavailable" };
  }
}

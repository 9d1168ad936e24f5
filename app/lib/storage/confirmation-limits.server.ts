import sql from "sql-template-tag";
import { z } from "zod";
import type { RateRule } from "~/lib/http/rate-limit.server";
import { rateLimitStatement, ruleIsFull } from "~/lib/storage/rate-limits.server";
import { parseRows, statement, type Prune } from "~/lib/storage/sql.server";
import type { Lease } from "~/lib/storage/deliveries.server";

// The accept batch's statements that queue a confirmation only within its limits (ADR 025); the limits are the kind's.

export interface ConfirmationRow {
  id: string;
  destination: string;
  submissionId: string;
  formId: string;
  nowMs: number;
  lease: Lease | null;
}

export interface ConfirmationChecks {
  mailboxKey: string | null;
  windowMs: number;
  network: RateRule;
  site: RateRule;
  reasons: { noAddress: string; mailbox: string; network: string; site: string };
}

export type ConfirmationStatements = {
  /** Its delivery row, pending or settled as skipped; RETURNING id and status (read them with skippedIds). */
  queue: D1PreparedStatement;
  count: D1PreparedStatement;
  slot: D1PreparedStatement;
  skippedLog: D1PreparedStatement;
};

/** One confirmation's row, pending when every limit has room, else settled as skipped; counts move only for a pending one. Pure. */
export function confirmationStatements(db: D1Database, row: ConfirmationRow, checks: ConfirmationChecks): ConfirmationStatements {
  const { id, destination, submissionId, formId, nowMs, lease } = row;
  const { mailboxKey, reasons } = checks;
  const createdAt = new Date(nowMs).toISOString();
  const reason = sql`CASE
      WHEN ${mailboxKey} IS NULL THEN ${reasons.noAddress}
      WHEN EXISTS (SELECT 1 FROM confirmation_limits WHERE form_id = ${formId} AND address_key = ${mailboxKey}
        AND sent_at > ${nowMs - checks.windowMs}) THEN ${reasons.mailbox}
      WHEN ${ruleIsFull(checks.network, nowMs)} THEN ${reasons.network}
      WHEN ${ruleIsFull(checks.site, nowMs)} THEN ${reasons.site}
    END`;
  // Only beside a stored submission, like every outbox row (insertDeliveryStatement).
  const queue = statement(
    db,
    sql`INSERT INTO deliveries (id, submission_id, form_id, destination, status, attempts, next_attempt_at, created_at,
         lease_owner, lease_until, last_error, delivered_at)
       SELECT ${id}, ${submissionId}, ${formId}, ${destination}, CASE WHEN r.reason IS NULL THEN 'pending' ELSE 'delivered' END,
         CASE WHEN r.reason IS NULL THEN 0 ELSE 1 END, ${nowMs}, ${createdAt},
         CASE WHEN r.reason IS NULL THEN ${lease?.owner ?? null} END, CASE WHEN r.reason IS NULL THEN ${lease?.untilMs ?? null} END,
         r.reason, CASE WHEN r.reason IS NULL THEN NULL ELSE ${createdAt} END
       FROM (SELECT ${reason} AS reason) AS r
       WHERE EXISTS (SELECT 1 FROM submissions WHERE id = ${submissionId})
       RETURNING id, status`,
  );
  const queued = sql`EXISTS (SELECT 1 FROM deliveries WHERE id = ${id} AND status = 'pending')`;
  const count = rateLimitStatement(db, [checks.network, checks.site], nowMs, queued);
  const slot = statement(
    db,
    sql`INSERT INTO confirmation_limits (form_id, address_key, delivery_id, sent_at)
       SELECT ${formId}, ${mailboxKey}, ${id}, ${nowMs} WHERE ${queued}
       ON CONFLICT (form_id, address_key) DO UPDATE SET delivery_id = excluded.delivery_id, sent_at = excluded.sent_at,
         started_logs = NULL`,
  );
  const skippedLog = statement(
    db,
    sql`INSERT INTO delivery_attempts (delivery_id, attempted_at, http_status, error, latency_ms, response_excerpt)
       SELECT ${id}, ${createdAt}, NULL, 'skipped', 0, NULL WHERE EXISTS (SELECT 1 FROM deliveries WHERE id = ${id} AND status = 'delivered')`,
  );
  return { queue, count, slot, skippedLog };
}

const QueuedRowSchema = z.object({ id: z.string(), status: z.enum(["pending", "delivered"]) });

/** The id of the confirmation when the `queue` statement's result says it was settled as skipped at once. */
export function skippedIds(queued: D1Result): string[] {
  return parseRows(QueuedRowSchema, queued.results)
    .filter((row) => row.status === "delivered")
    .map((row) => row.id);
}

const SlotRowSchema = z.object({ delivery_id: z.string() });

/** Why a confirmation may not go now: the mailbox had one within the window, or this delivery already started sending one. */
export type SlotVerdict = "reserved" | "limited" | "replayed";

/**
 * Takes the mailbox's slot in one upsert: "reserved" may send; "replayed" started a send that never logged
 * (it may have gone, so it is not sent again); "limited": another delivery holds it. D1 errors throw.
 */
export async function reserveConfirmationSlot(
  db: D1Database,
  {
    formId,
    mailboxKey,
    deliveryId,
    nowMs,
    windowMs,
  }: { formId: string; mailboxKey: string; deliveryId: string; nowMs: number; windowMs: number },
): Promise<SlotVerdict> {
  // Attempts logged so far; a config hold is logged before any send starts, so it does not count.
  const logged = sql`(SELECT COUNT(*) FROM delivery_attempts WHERE delivery_id = ${deliveryId} AND (error IS NULL OR error <> 'config'))`;
  const row = await statement(
    db,
    sql`INSERT INTO confirmation_limits (form_id, address_key, delivery_id, sent_at, started_logs)
       SELECT ${formId}, ${mailboxKey}, ${deliveryId}, ${nowMs}, ${logged}
       WHERE EXISTS (SELECT 1 FROM deliveries WHERE id = ${deliveryId} AND status = 'pending')
       ON CONFLICT (form_id, address_key) DO UPDATE SET delivery_id = excluded.delivery_id, sent_at = excluded.sent_at,
         started_logs = excluded.started_logs
       WHERE confirmation_limits.sent_at <= ${nowMs - windowMs}
         OR (confirmation_limits.delivery_id = excluded.delivery_id
           AND (confirmation_limits.started_logs IS NULL OR confirmation_limits.started_logs < excluded.started_logs))
       RETURNING delivery_id`,
  ).first();
  if (row !== null && SlotRowSchema.parse(row).delivery_id === deliveryId) return "reserved";
  const holder = await statement(
    db,
    sql`SELECT delivery_id FROM confirmation_limits WHERE form_id = ${formId} AND address_key = ${mailboxKey}`,
  ).first();
  return holder !== null && SlotRowSchema.parse(holder).delivery_id === deliveryId ? "replayed" : "limited";
}

/** The slots older than `windowMs`. */
export function staleConfirmationLimits(nowMs: number, windowMs: number): Prune {
  return { table: "confirmation_limits", where: sql`sent_at <= ${nowMs - windowMs}` };
}

import sql, { join } from "sql-template-tag";
import { PAUSED } from "~/lib/storage/destination-health.server";
import type { Claim } from "~/lib/storage/deliveries.server";
import { statement } from "~/lib/storage/sql.server";

// What an attempt leaves in the outbox (ADR 003): its log row and the delivery's new state, as statements.

export interface AttemptLog {
  httpStatus: number | null;
  error: string | null;
  latencyMs: number;
  excerpt: string | null;
}

/** The attempt's row in the delivery log. Pure. */
export function logAttemptStatement(db: D1Database, deliveryId: string, attemptedAt: string, log: AttemptLog): D1PreparedStatement {
  return statement(
    db,
    sql`INSERT INTO delivery_attempts (delivery_id, attempted_at, http_status, error, latency_ms, response_excerpt)
      VALUES (${deliveryId}, ${attemptedAt}, ${log.httpStatus}, ${log.error}, ${log.latencyMs}, ${log.excerpt})`,
  );
}

/** A `config` row in the delivery log, written only when `reason` differs from the delivery's last error. */
export function logHeldOnChangeStatement(
  db: D1Database,
  deliveryId: string,
  attemptedAt: string,
  latencyMs: number,
  reason: string | null,
): D1PreparedStatement {
  return statement(
    db,
    sql`INSERT INTO delivery_attempts (delivery_id, attempted_at, http_status, error, latency_ms, response_excerpt)
      SELECT ${deliveryId}, ${attemptedAt}, NULL, 'config', ${latencyMs}, NULL
      WHERE NOT EXISTS (SELECT 1 FROM deliveries WHERE id = ${deliveryId} AND last_error IS ${reason})`,
  );
}

/** Settles a pending delivery as delivered, whoever holds its lease; `note` is kept as its last_error. */
export function markDeliveredStatement(db: D1Database, deliveryId: string, deliveredAt: string, note: string | null): D1PreparedStatement {
  return statement(
    db,
    sql`UPDATE deliveries SET status = 'delivered', attempts = attempts + 1, delivered_at = ${deliveredAt},
        lease_owner = NULL, lease_until = NULL, last_error = ${note}
      WHERE id = ${deliveryId} AND status = 'pending'`,
  );
}

/** Releases `owner`'s lease and looks again at `nextAttemptMs`, keeping the attempt count. */
export function holdStatement(
  db: D1Database,
  claim: Claim,
  owner: string,
  nextAttemptMs: number,
  reason: string | null,
): D1PreparedStatement {
  return statement(
    db,
    sql`UPDATE deliveries SET next_attempt_at = ${nextAttemptMs}, last_error = ${reason}, lease_owner = NULL, lease_until = NULL
      WHERE id = ${claim.id} AND lease_owner = ${owner} AND status = 'pending'`,
  );
}

/** Gives back `owner`'s leases on `ids` untouched (a dispatch the queue refused). D1 errors throw. */
export async function releaseLeases(db: D1Database, ids: readonly string[], owner: string): Promise<void> {
  if (ids.length === 0) return;
  await statement(
    db,
    sql`UPDATE deliveries SET lease_owner = NULL, lease_until = NULL WHERE id IN (${join(ids, ", ")}) AND lease_owner = ${owner}`,
  ).run();
}

/** Gives `owner`'s lease back untouched (due time, attempts, last error kept): the attempt never reached the receiver. */
export function releaseLeaseStatement(db: D1Database, claim: Claim, owner: string): D1PreparedStatement {
  return statement(
    db,
    sql`UPDATE deliveries SET lease_owner = NULL, lease_until = NULL
      WHERE id = ${claim.id} AND lease_owner = ${owner} AND status = 'pending'`,
  );
}

/** While its destination is paused (ADR 071), a failure is not counted: the lease is given back with the reason. */
export function holdWhilePausedStatement(db: D1Database, claim: Claim, owner: string, reason: string | null): D1PreparedStatement {
  return statement(
    db,
    sql`UPDATE deliveries SET last_error = ${reason}, lease_owner = NULL, lease_until = NULL
      WHERE id = ${claim.id} AND lease_owner = ${owner} AND status = 'pending' AND ${PAUSED}`,
  );
}

/** Counts a failed attempt while `owner` holds the lease: pending again at `nextAttemptMs`, or dead; not while paused. */
export function failedAttemptStatement(
  db: D1Database,
  claim: Claim,
  owner: string,
  { attempts, dead, nextAttemptMs, reason }: { attempts: number; dead: boolean; nextAttemptMs: number; reason: string | null },
): D1PreparedStatement {
  return statement(
    db,
    sql`UPDATE deliveries SET attempts = ${attempts}, status = ${dead ? "dead" : "pending"}, next_attempt_at = ${nextAttemptMs},
        last_error = ${reason}, lease_owner = NULL, lease_until = NULL
      WHERE id = ${claim.id} AND lease_owner = ${owner} AND status = 'pending' AND NOT ${PAUSED}`,
  );
}

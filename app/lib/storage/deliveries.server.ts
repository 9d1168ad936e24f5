import sql, { empty, join, raw } from "sql-template-tag";
import { z } from "zod";
import { PAUSED } from "~/lib/storage/destination-health.server";
import { parseRows, runBatch, statement } from "~/lib/storage/sql.server";
import { KIND_SPECS } from "~/lib/destinations/registry";

// The outbox's tables, `deliveries` and `delivery_attempts` (docs/decisions/003-outbox.md); what to
// send and when to retry is app/lib/delivery/'s to decide.

export const DeliveryRowSchema = z.object({
  id: z.string(),
  submission_id: z.string(),
  form_id: z.string(),
  destination: z.string(),
  status: z.enum(["pending", "delivered", "dead"]),
  attempts: z.number(),
  next_attempt_at: z.number(),
  lease_owner: z.string().nullable(),
  lease_until: z.number().nullable(),
  last_error: z.string().nullable(),
  created_at: z.string(),
  delivered_at: z.string().nullable(),
});

export const AttemptRowSchema = z.object({
  id: z.number(),
  delivery_id: z.string(),
  attempted_at: z.string(),
  http_status: z.number().nullable(),
  error: z.string().nullable(),
  latency_ms: z.number(),
  response_excerpt: z.string().nullable(),
});

/** A delivery leased to one sender: what it needs to make one attempt. */
export interface Claim {
  id: string;
  submissionId: string;
  formId: string;
  destination: string;
  attempts: number;
}

export interface Lease {
  owner: string;
  untilMs: number;
}

/** One pending delivery, due at `nowMs`, leased when `lease` is given; only beside a stored submission (docs/decisions/033). Pure. */
export function insertDeliveryStatement(db: D1Database, claim: Claim, nowMs: number, lease: Lease | null): D1PreparedStatement {
  const { id, submissionId, formId, destination } = claim;
  return statement(
    db,
    sql`INSERT INTO deliveries (id, submission_id, form_id, destination, status, attempts, next_attempt_at, created_at,
        lease_owner, lease_until)
      SELECT ${id}, ${submissionId}, ${formId}, ${destination}, 'pending', 0, ${nowMs}, ${new Date(nowMs).toISOString()},
        ${lease?.owner ?? null}, ${lease?.untilMs ?? null}
      WHERE EXISTS (SELECT 1 FROM submissions WHERE id = ${submissionId})`,
  );
}

const ClaimRowSchema = DeliveryRowSchema.pick({ id: true, submission_id: true, form_id: true, destination: true, attempts: true });

/**
 * Leases up to `limit` due deliveries to `owner` (only those of `submissionId` when given), none of a
 * paused destination (claimProbes takes those). One atomic statement; D1 errors throw.
 */
export async function claimDue(
  db: D1Database,
  { owner, nowMs, limit, leaseMs, submissionId }: { owner: string; nowMs: number; limit: number; leaseMs: number; submissionId?: string },
): Promise<Claim[]> {
  const query = sql`UPDATE deliveries SET lease_owner = ${owner}, lease_until = ${nowMs + leaseMs}
    WHERE id IN (
      SELECT id FROM deliveries
      WHERE status = 'pending' AND next_attempt_at <= ${nowMs} AND (lease_until IS NULL OR lease_until <= ${nowMs})
        ${submissionId ? sql`AND submission_id = ${submissionId}` : empty}
        AND NOT ${PAUSED}
      ORDER BY next_attempt_at LIMIT ${limit})
    RETURNING id, submission_id, form_id, destination, attempts`;
  const { results } = await statement(db, query).all();
  return claimsOf(results);
}

/** A delivery a queue message names, as the consumer found it after trying to claim it. */
export interface NamedDelivery {
  id: string;
  status: "pending" | "delivered" | "dead" | null;
  nextAttemptMs: number | null;
  /** Its destination is paused (docs/decisions/071). */
  paused: boolean;
}

/**
 * Leases the deliveries `ids` names that are pending, due within `slackMs`, of no paused destination
 * and not leased to anyone but `handedOver` (the accepting request that handed its first attempt to the
 * queue); then reads how every named one stands. One batch of two statements; D1 errors throw.
 */
export async function claimNamed(
  db: D1Database,
  {
    ids,
    owner,
    handedOver,
    nowMs,
    leaseMs,
    slackMs,
  }: {
    ids: readonly string[];
    owner: string;
    handedOver: readonly string[];
    nowMs: number;
    leaseMs: number;
    slackMs: number;
  },
): Promise<{ claims: Claim[]; named: NamedDelivery[] }> {
  const list = join(ids.length > 0 ? ids : [""], ", ");
  const takeover = handedOver.length > 0 ? sql`OR lease_owner IN (${join(handedOver, ", ")})` : empty;
  const done = await runBatch(db, {
    claimed: statement(
      db,
      sql`UPDATE deliveries SET lease_owner = ${owner}, lease_until = ${nowMs + leaseMs}
        WHERE id IN (${list}) AND status = 'pending' AND next_attempt_at <= ${nowMs + slackMs}
          AND (lease_until IS NULL OR lease_until <= ${nowMs} ${takeover}) AND NOT ${PAUSED}
        RETURNING id, submission_id, form_id, destination, attempts`,
    ),
    named: statement(db, sql`SELECT id, status, next_attempt_at, ${PAUSED} AS paused FROM deliveries WHERE id IN (${list})`),
  });
  const found = parseRows(
    DeliveryRowSchema.pick({ id: true, status: true, next_attempt_at: true }).extend({ paused: z.number() }),
    done.named.results,
  );
  return {
    claims: claimsOf(done.claimed.results),
    named: ids.map((id) => {
      const row = found.find((r) => r.id === id);
      return { id, status: row?.status ?? null, nextAttemptMs: row?.next_attempt_at ?? null, paused: row?.paused === 1 };
    }),
  };
}

/**
 * Marks dead the pending deliveries `ids` names that no one holds: the delivery queue's dead-letter
 * queue, whose messages ran out of retries (docs/decisions/070). D1 errors throw; returns how many.
 */
export async function markQueueDead(db: D1Database, ids: readonly string[], nowMs: number, reason: string): Promise<number> {
  if (ids.length === 0) return 0;
  const { results } = await statement(
    db,
    sql`UPDATE deliveries SET status = 'dead', last_error = ${reason}, lease_owner = NULL, lease_until = NULL
      WHERE id IN (${join(ids, ", ")}) AND status = 'pending' AND (lease_until IS NULL OR lease_until <= ${nowMs}) AND NOT ${PAUSED}
      RETURNING id`,
  ).all();
  return results.length;
}

/**
 * Leases one pending delivery (the oldest, due or not) of up to `limit` paused destinations whose probe
 * is due, and sets their next probe `probeMs` later. One statement when no probe is due (the usual
 * case), two when some are; D1 errors throw.
 */
export async function claimProbes(
  db: D1Database,
  { owner, nowMs, leaseMs, probeMs, limit }: { owner: string; nowMs: number; leaseMs: number; probeMs: number; limit: number },
): Promise<Claim[]> {
  const free = (alias: string) =>
    sql`${raw(alias)}.status = 'pending' AND (${raw(alias)}.lease_until IS NULL OR ${raw(alias)}.lease_until <= ${nowMs})`;
  const { results } = await statement(
    db,
    sql`UPDATE destination_health SET probe_at = ${nowMs + probeMs}
      WHERE (form_id, destination) IN (SELECT h.form_id, h.destination FROM destination_health h
        WHERE h.paused_at IS NOT NULL AND h.probe_at <= ${nowMs}
          AND EXISTS (SELECT 1 FROM deliveries e WHERE e.form_id = h.form_id AND e.destination = h.destination AND ${free("e")})
        ORDER BY h.probe_at LIMIT ${limit})
      RETURNING form_id, destination`,
  ).all();
  const due = parseRows(z.object({ form_id: z.string(), destination: z.string() }), results);
  if (due.length === 0) return [];
  const oldest = due.map(
    (d) =>
      sql`(SELECT id FROM deliveries d WHERE d.form_id = ${d.form_id} AND d.destination = ${d.destination} AND ${free("d")}
        ORDER BY d.next_attempt_at LIMIT 1)`,
  );
  const claimed = await statement(
    db,
    sql`UPDATE deliveries SET lease_owner = ${owner}, lease_until = ${nowMs + leaseMs}
      WHERE id IN (${join(oldest, ", ")}) RETURNING id, submission_id, form_id, destination, attempts`,
  ).all();
  return claimsOf(claimed.results);
}

function claimsOf(results: readonly unknown[]): Claim[] {
  return parseRows(ClaimRowSchema, results).map((row) => ({
    id: row.id,
    submissionId: row.submission_id,
    formId: row.form_id,
    destination: row.destination,
    attempts: row.attempts,
  }));
}

/** What one attempt left for the delivery log (sending/attempt.server.ts' AttemptRecord fits it). */
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

/**
 * While its destination is paused, a failed attempt is not counted: `owner`'s lease is given back with
 * the reason kept (docs/decisions/071). Pairs with failedAttemptStatement, which does nothing then.
 */
export function holdWhilePausedStatement(db: D1Database, claim: Claim, owner: string, reason: string | null): D1PreparedStatement {
  return statement(
    db,
    sql`UPDATE deliveries SET last_error = ${reason}, lease_owner = NULL, lease_until = NULL
      WHERE id = ${claim.id} AND lease_owner = ${owner} AND status = 'pending' AND ${PAUSED}`,
  );
}

/**
 * Counts a failed attempt while `owner` still holds the lease: pending again at `nextAttemptMs`, or dead;
 * not while its destination is paused (holdWhilePausedStatement).
 */
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

// Requeueing starts a fresh retry schedule; the attempts log keeps every earlier attempt.
const requeue = (nowMs: number) =>
  sql`UPDATE deliveries SET status = 'pending', attempts = 0, next_attempt_at = ${nowMs}, lease_owner = NULL, lease_until = NULL,
    last_error = NULL, delivered_at = NULL`;
// A kind sent at most once (its module says: a confirmation) is never queued again once it went or was
// skipped. A dead one never went, so it may be; the drain's mailbox slot still holds it.
const ONCE_KINDS = KIND_SPECS.filter((spec) => spec.once).map((spec) => spec.kind);
const SETTLED_ONCE = ONCE_KINDS.length > 0 ? sql`destination IN (${join(ONCE_KINDS)}) AND status = 'delivered'` : sql`0`;
const IdRowSchema = DeliveryRowSchema.pick({ id: true });

/** Requeues every delivery of one submission but one sent at most once that went, keeping webhook-ids. D1 errors throw. */
export async function requeueSubmission(
  db: D1Database,
  submissionId: string,
  nowMs: number,
): Promise<{ found: boolean; requeued: number; kept: number }> {
  const done = await runBatch(db, {
    found: statement(db, sql`SELECT id FROM submissions WHERE id = ${submissionId}`),
    requeued: statement(db, sql`${requeue(nowMs)} WHERE submission_id = ${submissionId} AND NOT (${SETTLED_ONCE}) RETURNING id`),
    kept: statement(db, sql`SELECT id FROM deliveries WHERE submission_id = ${submissionId} AND ${SETTLED_ONCE}`),
  });
  return {
    found: done.found.results.length > 0,
    requeued: parseRows(IdRowSchema, done.requeued.results).length,
    kept: parseRows(IdRowSchema, done.kept.results).length,
  };
}

/** Which dead deliveries a bulk redelivery takes: one form's, optionally one destination's, created in [from, to). */
export interface DeadFilter {
  formId: string;
  destination?: string | null;
  /** ISO 8601 (UTC, as created_at is kept): inclusive. */
  fromIso?: string | null;
  /** ISO 8601: exclusive. */
  toIso?: string | null;
}

const deadMatching = (filter: DeadFilter) =>
  sql`form_id = ${filter.formId} AND status = 'dead'
    ${filter.destination ? sql`AND destination = ${filter.destination}` : empty}
    ${filter.fromIso ? sql`AND created_at >= ${filter.fromIso}` : empty}
    ${filter.toIso ? sql`AND created_at < ${filter.toIso}` : empty}`;
const CountRowSchema = z.object({ n: z.number() });

/**
 * Requeues up to `limit` dead deliveries matching `filter`, oldest first (each with a fresh schedule,
 * webhook-id kept), and counts those still dead: one batch of two statements. D1 errors throw.
 */
export async function requeueDeadChunk(
  db: D1Database,
  filter: DeadFilter,
  nowMs: number,
  limit: number,
): Promise<{ requeued: number; remaining: number }> {
  const done = await runBatch(db, {
    requeued: statement(
      db,
      sql`${requeue(nowMs)} WHERE id IN (SELECT id FROM deliveries WHERE ${deadMatching(filter)} ORDER BY created_at, id LIMIT ${limit}) RETURNING id`,
    ),
    remaining: statement(db, sql`SELECT COUNT(*) AS n FROM deliveries WHERE ${deadMatching(filter)}`),
  });
  return {
    requeued: parseRows(IdRowSchema, done.requeued.results).length,
    remaining: parseRows(CountRowSchema, done.remaining.results)[0]?.n ?? 0,
  };
}

/** How many deliveries of `formId` are dead, by destination. D1 errors throw. */
export async function countDeadByDestination(db: D1Database, formId: string): Promise<Record<string, number>> {
  const { results } = await statement(
    db,
    sql`SELECT destination, COUNT(*) AS n FROM deliveries WHERE form_id = ${formId} AND status = 'dead' GROUP BY destination`,
  ).all();
  return Object.fromEntries(
    parseRows(z.object({ destination: z.string(), n: z.number() }), results).map((row) => [row.destination, row.n]),
  );
}

/** Requeues every dead delivery of one form; returns how many. D1 errors throw. */
export async function requeueDead(db: D1Database, formId: string, nowMs: number): Promise<number> {
  const { results } = await statement(db, sql`${requeue(nowMs)} WHERE form_id = ${formId} AND status = 'dead' RETURNING id`).all();
  return parseRows(IdRowSchema, results).length;
}

import sql, { empty, join, raw } from "sql-template-tag";
import { z } from "zod";
import { PAUSED } from "~/lib/storage/destination-health.server";
import { parseRows, runBatch, statement } from "~/lib/storage/sql.server";

// The outbox's tables (ADR 003); what to send and when is app/lib/delivery/'s to decide.

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

/** Leases up to `limit` due deliveries to `owner`, none of a paused destination, in one statement. D1 errors throw. */
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

export interface NamedDelivery {
  id: string;
  status: "pending" | "delivered" | "dead" | null;
  nextAttemptMs: number | null;
  paused: boolean;
}

/** Leases the named deliveries that are due, unpaused and held by no one but `handedOver`, then reads them all. D1 errors throw. */
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

/** Marks dead the pending deliveries whose queue messages ran out of retries (ADR 070); returns how many. D1 errors throw. */
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

/** Leases one pending delivery of each paused destination whose probe is due, and sets the next probe. D1 errors throw. */
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

/** The claims a statement RETURNING id, submission_id, form_id, destination, attempts names. */
export function claimsOf(results: readonly unknown[]): Claim[] {
  return parseRows(ClaimRowSchema, results).map((row) => ({
    id: row.id,
    submissionId: row.submission_id,
    formId: row.form_id,
    destination: row.destination,
    attempts: row.attempts,
  }));
}

import sql, { empty, join } from "sql-template-tag";
import { z } from "zod";
import { KIND_SPECS } from "~/lib/destinations/registry";
import { DeliveryRowSchema } from "~/lib/storage/deliveries.server";
import { parseRows, runBatch, statement } from "~/lib/storage/sql.server";

// Requeueing starts a fresh retry schedule; the attempts log keeps every earlier attempt.
const requeue = (nowMs: number) =>
  sql`UPDATE deliveries SET status = 'pending', attempts = 0, next_attempt_at = ${nowMs}, lease_owner = NULL, lease_until = NULL,
    last_error = NULL, delivered_at = NULL`;
// A kind sent at most once (a confirmation) is never queued again once it went or was skipped.
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
  fromIso?: string | null;
  toIso?: string | null;
}

const deadMatching = (filter: DeadFilter) =>
  sql`form_id = ${filter.formId} AND status = 'dead'
    ${filter.destination ? sql`AND destination = ${filter.destination}` : empty}
    ${filter.fromIso ? sql`AND created_at >= ${filter.fromIso}` : empty}
    ${filter.toIso ? sql`AND created_at < ${filter.toIso}` : empty}`;
const CountRowSchema = z.object({ n: z.number() });

/** Requeues up to `limit` dead deliveries matching `filter`, oldest first, and counts those still dead. D1 errors throw. */
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

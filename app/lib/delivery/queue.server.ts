import { z } from "zod";
import type { Settings } from "~/lib/settings/settings.server";
import { LEASE_MS } from "~/lib/delivery/drain.server";
import {
  BATCH_COST,
  CATALOG_COST,
  deliverClaims,
  deliveriesCost,
  DELIVERY_COST,
  type DeliverOptions,
} from "~/lib/delivery/deliver-claims.server";
import { budgetFor } from "~/lib/platform/budget.server";
import { claimNamed, markQueueDead, type Claim } from "~/lib/storage/deliveries.server";

// Cloudflare Queues as the outbox's doorbell (docs/decisions/070): when DELIVERY_QUEUE is bound, an
// accepted submission's deliveries go out as messages (one per delivery) instead of being tried in the
// accepting request. D1 stays the record: the consumer claims each row under a lease, sends, settles it
// in D1 as the drain does, and hands the outbox's retry schedule to the queue as the message's delay.
// A message lost or refused loses nothing: the cron's drain takes every due row without one.

/** A message names one delivery, and the lease (the accepting request's) the consumer may take over. */
export interface DeliveryMessage {
  id: string;
  owner: string | null;
}
const DeliveryMessageSchema = z.object({ id: z.string().min(1).max(100), owner: z.string().max(200).nullable() });

/** Queues delay a message at most 24 h; a longer wait is re-checked then (or taken by the cron). */
export const MAX_QUEUE_DELAY_S = 86_400;
/** A message may come a little early: a row due within this is sent rather than delayed again. */
export const QUEUE_SLACK_MS = 5_000;
/** What the dead-letter queue leaves in last_error. */
export const QUEUE_GAVE_UP = "the delivery queue ran out of retries (dead-letter queue)";

/** The DELIVERY_QUEUE binding when the Worker has one, else null: everything then works without it. */
export function deliveryQueueOf(env: object): Queue<DeliveryMessage> | null {
  const queue = (env as { DELIVERY_QUEUE?: Partial<Queue<DeliveryMessage>> }).DELIVERY_QUEUE;
  return queue && typeof queue.sendBatch === "function" ? (queue as Queue<DeliveryMessage>) : null;
}

/** Sends one message per claim. False (logged) when the queue refused: the caller sends them itself. */
export async function enqueueClaims(queue: Queue<DeliveryMessage>, claims: readonly Claim[], owner: string | null): Promise<boolean> {
  if (claims.length === 0) return true;
  try {
    await queue.sendBatch(claims.map((claim) => ({ body: { id: claim.id, owner }, contentType: "json" as const })));
    return true;
  } catch (error) {
    console.error(`sending ${claims.length} deliveries to the delivery queue failed; delivering them here instead:`, error);
    return false;
  }
}

export interface ConsumeDeps extends DeliverOptions {
  db: D1Database;
  settings: Settings;
}

export interface ConsumeReport {
  delivered: number;
  retrying: number;
  dead: number;
  released: number;
  /** Messages sent back to the queue with a delay (a retry, or a row not due yet). */
  delayed: number;
  /** Messages acknowledged without an attempt: delivered or dead already, held elsewhere, paused, unknown. */
  dropped: number;
}

/**
 * One invocation of the delivery queue's consumer: claims what the budget affords, sends, settles in
 * D1, and acknowledges or delays each message. Throws only if D1 fails (the queue retries the batch).
 */
export async function consumeDeliveryBatch(batch: MessageBatch<unknown>, deps: ConsumeDeps): Promise<ConsumeReport> {
  const { db, settings, now = Date.now } = deps;
  const report: ConsumeReport = { delivered: 0, retrying: 0, dead: 0, released: 0, delayed: 0, dropped: 0 };
  const budget = deps.budget ?? budgetFor(settings.plan);
  const delay = (message: Message<unknown>, atMs: number | null) => {
    const seconds = atMs === null ? 0 : Math.min(Math.max(Math.ceil((atMs - now()) / 1000), 0), MAX_QUEUE_DELAY_S);
    message.retry(seconds > 0 ? { delaySeconds: seconds } : undefined);
    report.delayed += 1;
  };
  const drop = (message: Message<unknown>) => {
    message.ack();
    report.dropped += 1;
  };
  const messages: Array<{ message: Message<unknown>; body: DeliveryMessage }> = [];
  for (const message of batch.messages) {
    const body = DeliveryMessageSchema.safeParse(message.body);
    if (body.success) messages.push({ message, body: body.data });
    else {
      console.error(`the delivery queue got a message that names no delivery (${message.id}); dropped`);
      drop(message);
    }
  }
  // Only as many as this invocation can pay for; the rest come back at once, in a new invocation.
  const affordable = budget.unitsLeft(DELIVERY_COST, { d1Queries: BATCH_COST.d1Queries + 1 + CATALOG_COST.d1Queries });
  for (const { message } of messages.slice(affordable)) delay(message, null);
  const taken = messages.slice(0, affordable);
  if (taken.length === 0) return report;
  budget.spend({ d1Queries: BATCH_COST.d1Queries + 1 + CATALOG_COST.d1Queries });
  const owner = `queue:${crypto.randomUUID()}`;
  const handedOver = [...new Set(taken.map((m) => m.body.owner).filter((o): o is string => o !== null && o.startsWith("accept:")))];
  const { claims, named } = await claimNamed(db, {
    ids: taken.map((m) => m.body.id),
    owner,
    handedOver,
    nowMs: now(),
    leaseMs: LEASE_MS,
    slackMs: QUEUE_SLACK_MS,
  });
  budget.spend(deliveriesCost(claims.length));
  const sent = claims.length > 0 ? await deliverClaims(db, settings, claims, owner, { ...deps, budget }) : { results: [] };
  for (const { message, body } of taken) {
    const at = claims.findIndex((claim) => claim.id === body.id);
    if (at < 0) {
      // Not claimed: gone, settled, held by another sender (the cron) or paused, or not due yet.
      const row = named.find((n) => n.id === body.id);
      if (row?.status === "pending" && row.nextAttemptMs !== null && row.nextAttemptMs > now() + QUEUE_SLACK_MS)
        delay(message, row.nextAttemptMs);
      else drop(message);
      continue;
    }
    const result = sent.results[at];
    if (!result) {
      // The platform refused a call: the row lapses back to pending, unchanged, for the cron.
      drop(message);
      continue;
    }
    report[result.outcome] += 1;
    if (result.outcome === "retrying" && !result.paused) delay(message, result.nextAttemptMs);
    else message.ack();
  }
  return report;
}

/** The dead-letter queue's consumer: each delivery whose messages ran out of retries becomes dead. Throws only if D1 fails. */
export async function consumeDeadLetters(
  batch: MessageBatch<unknown>,
  { db, now = Date.now }: Pick<ConsumeDeps, "db" | "now">,
): Promise<number> {
  const ids = batch.messages.flatMap((message) => {
    const body = DeliveryMessageSchema.safeParse(message.body);
    return body.success ? [body.data.id] : [];
  });
  const dead = await markQueueDead(db, ids, now(), QUEUE_GAVE_UP);
  batch.ackAll();
  return dead;
}

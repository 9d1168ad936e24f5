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
import { PROBE_INTERVAL_MS } from "~/lib/delivery/settle.server";
import { budgetFor, type InvocationBudget } from "~/lib/platform/budget.server";
import { claimDue, claimNamed, markQueueDead, type Claim } from "~/lib/storage/deliveries.server";
import { releaseLeases } from "~/lib/storage/delivery-outcomes.server";

// Cloudflare Queues as the outbox's doorbell (ADR 070): with DELIVERY_QUEUE bound, each delivery goes out as a
// message; D1 stays the record and the outbox's retry schedule becomes the message's delay. A lost message
// loses nothing: the cron's drain takes every due row without one.

export interface DeliveryMessage {
  id: string;
  owner: string | null;
}
const DeliveryMessageSchema = z.object({ id: z.string().min(1).max(100), owner: z.string().max(200).nullable() });

/** Queues delay a message at most 24 h; a longer wait is re-checked then (or taken by the cron). */
export const MAX_QUEUE_DELAY_S = 86_400;
/** A message may come a little early: a row due within this is sent rather than delayed again. */
export const QUEUE_SLACK_MS = 5_000;
export const QUEUE_GAVE_UP = "the delivery queue ran out of retries (dead-letter queue)";

const HANDED_OVER = /^(accept|dispatch):/;
/** Rows one cron run hands to the queue (one claim statement, a sendBatch per 100): 4,800 on Free, whose 50 subrequests bound it. */
export const DISPATCH_LIMIT = 5_000;
export const SEND_BATCH = 100;
/** A dispatched row waits this long for its message before the cron dispatches it again. */
export const DISPATCH_LEASE_MS = 5 * 60_000;

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

/** The cron's part with the queue: leases due rows and sends a message each within the budget; `refused`: the rest are given back. Throws only if D1 fails. */
export async function dispatchDue(
  db: D1Database,
  queue: Queue<DeliveryMessage>,
  { nowMs, budget, limit = DISPATCH_LIMIT }: { nowMs: number; budget: InvocationBudget; limit?: number },
): Promise<{ dispatched: number; refused: boolean }> {
  const sends = Math.min(Math.ceil(limit / SEND_BATCH), budget.unitsLeft({ subrequests: 1 }, { d1Queries: 2 }));
  if (sends === 0 || !budget.trySpend({ d1Queries: 1 })) return { dispatched: 0, refused: false };
  const owner = `dispatch:${crypto.randomUUID()}`;
  const claims = await claimDue(db, { owner, nowMs, limit: Math.min(limit, sends * SEND_BATCH), leaseMs: DISPATCH_LEASE_MS });
  let dispatched = 0;
  for (let i = 0; i < claims.length; i += SEND_BATCH) {
    budget.spend({ subrequests: 1 });
    const chunk = claims.slice(i, i + SEND_BATCH);
    if (!(await enqueueClaims(queue, chunk, owner))) {
      budget.spend({ d1Queries: 1 });
      await releaseLeases(
        db,
        claims.slice(i).map((claim) => claim.id),
        owner,
      );
      return { dispatched, refused: true };
    }
    dispatched += chunk.length;
  }
  return { dispatched, refused: false };
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
  delayed: number;
  dropped: number;
}

/** One invocation of the queue's consumer: claims what the budget affords, sends, settles, acks or delays. Throws only if D1 fails. */
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
  const handedOver = [...new Set(taken.map((m) => m.body.owner).filter((o): o is string => o !== null && HANDED_OVER.test(o)))];
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
    if (result.outcome === "retrying") delay(message, result.paused ? now() + PROBE_INTERVAL_MS : result.nextAttemptMs);
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

import { createExecutionContext, createMessageBatch, createScheduledController, env, getQueueResult } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import worker from "../../functions/index";
import { consumeDeliveryBatch, QUEUE_GAVE_UP, type DeliveryMessage } from "~/lib/delivery/queue.server";
import { RETRY_DELAYS_MS } from "~/lib/delivery/settle.server";
import { parseSettings } from "~/lib/settings/settings.server";
import { expectConsoleErrors } from "../support/fail-on-console";
import { appFetch, clearTables, formPost, sink, sinkEnv, standin, standinToken } from "./helpers";
import { deliveryRows, storeDue } from "./outbox-helpers";

// The delivery queue (docs/decisions/070), through the real Worker's queue handler and
// vitest-pool-workers' message batches: with DELIVERY_QUEUE bound, an accepted submission's deliveries
// go to the queue instead of being tried in the request; the consumer sends and settles them in D1,
// hands the retry schedule to the queue as a delay, and its dead-letter queue marks them dead. A send
// the queue refuses loses nothing: the request delivers itself.

const QUEUE = "gatepost-deliveries";

/** A DELIVERY_QUEUE binding that keeps what it was sent, or refuses every send. */
function keepingQueue({ refuse = false } = {}) {
  const sent: DeliveryMessage[] = [];
  const queue = {
    sent,
    async send(body: DeliveryMessage) {
      if (refuse) throw new Error("Queue send failed: daily operations limit reached");
      sent.push(body);
    },
    async sendBatch(messages: Iterable<MessageSendRequest<DeliveryMessage>>) {
      if (refuse) throw new Error("Queue sendBatch failed: daily operations limit reached");
      for (const message of messages) sent.push(message.body);
    },
  };
  return queue;
}

/** A MessageBatch that keeps each message's ack and retry (with its options). */
function recordingBatch(bodies: DeliveryMessage[]) {
  const acked: string[] = [];
  const retried: Array<{ id: string; delaySeconds?: number }> = [];
  const messages = bodies.map((body, i) => ({
    id: `msg-${i}`,
    timestamp: new Date(),
    attempts: 1,
    body,
    ack: () => void acked.push(`msg-${i}`),
    retry: (options?: QueueRetryOptions) => void retried.push({ id: `msg-${i}`, delaySeconds: options?.delaySeconds }),
  }));
  const batch = { queue: QUEUE, messages, ackAll: () => {}, retryAll: () => {} } as unknown as MessageBatch<unknown>;
  return { batch, acked, retried };
}

function batchOf(bodies: DeliveryMessage[], queue = QUEUE) {
  return createMessageBatch<DeliveryMessage>(
    queue,
    bodies.map((body, i) => ({ id: `msg-${i}`, timestamp: new Date(), attempts: 1, body })),
  );
}

async function consume(bodies: DeliveryMessage[], appEnv: Env, queue = QUEUE) {
  const batch = batchOf(bodies, queue);
  const ctx = createExecutionContext();
  await worker.queue(batch as MessageBatch<unknown>, appEnv);
  return getQueueResult(batch, ctx);
}

function post(appEnv: Env) {
  return appFetch(
    formPost("/f/contact", {
      name: "Ada",
      email: "ada@example.org",
      message: "Queued, then sent.",
      "cf-turnstile-response": standinToken(),
    }),
    appEnv,
  );
}

/** The consumer's one-line reports (functions/queue.ts), kept for the test instead of printed. */
let reports: string[] = [];

beforeEach(async () => {
  await standin.reset();
  await sink.reset();
  await clearTables();
  reports = [];
  vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void reports.push(args.join(" ")));
});

afterEach(() => {
  // Only the consumer's reports are expected on the log.
  expect(reports.filter((line) => !/^\{"(deliveryQueue|deadLetters)":/.test(line))).toEqual([]);
});

describe("with DELIVERY_QUEUE bound", () => {
  it("sends each delivery to the queue after the accept batch, and the consumer delivers it", async () => {
    const queue = keepingQueue();
    const appEnv = { ...sinkEnv(), DELIVERY_QUEUE: queue } as Env;
    expect((await post(appEnv)).status).toBe(303);
    const [row] = await deliveryRows();
    // Not tried in the request: the queue has it, and the row stays leased to the request meanwhile.
    expect(row).toMatchObject({ status: "pending", attempts: 0, lease_owner: expect.stringMatching(/^accept:/) });
    expect(queue.sent).toEqual([{ id: row.id, owner: row.lease_owner }]);
    expect((await sink.state()).requests).toHaveLength(0);

    const result = await consume(queue.sent, appEnv);
    expect(result.explicitAcks).toEqual(["msg-0"]);
    expect(result.retryMessages).toEqual([]);
    expect((await deliveryRows())[0]).toMatchObject({ status: "delivered", attempts: 1, lease_owner: null });
    expect((await sink.state()).unique.map((u) => u.id)).toEqual([row.id]);

    // At least once: the same message again finds the row delivered and is dropped, nothing sent twice.
    expect((await consume(queue.sent, appEnv)).explicitAcks).toEqual(["msg-0"]);
    expect((await sink.state()).requests).toHaveLength(1);
  });

  it("a send the queue refuses loses nothing: the request makes the first attempt itself", async () => {
    const refused = expectConsoleErrors(/sending 1 deliveries to the delivery queue failed/);
    const appEnv = { ...sinkEnv(), DELIVERY_QUEUE: keepingQueue({ refuse: true }) } as Env;
    expect((await post(appEnv)).status).toBe(303);
    expect(refused()).toHaveLength(1);
    expect((await deliveryRows())[0]).toMatchObject({ status: "delivered", attempts: 1 });
  });

  it("hands the outbox's retry schedule to the queue as the message's delay, and delays rows not yet due", async () => {
    await sink.setMode("http500");
    const queue = keepingQueue();
    const appEnv = { ...sinkEnv(), DELIVERY_QUEUE: queue } as Env;
    await post(appEnv);
    // getQueueResult reports which messages were retried but not their delay: a batch that keeps both.
    const failed = recordingBatch(queue.sent);
    await consumeDeliveryBatch(failed.batch, { db: env.DB, settings: parseSettings(appEnv) });
    expect(failed.acked).toEqual([]);
    expect(failed.retried).toHaveLength(1);
    const delay = failed.retried[0].delaySeconds ?? -1;
    expect(delay).toBeGreaterThanOrEqual(Math.floor((RETRY_DELAYS_MS[0] * 0.8) / 1000));
    expect(delay).toBeLessThanOrEqual(Math.ceil((RETRY_DELAYS_MS[0] * 1.2) / 1000));
    expect((await deliveryRows())[0]).toMatchObject({ status: "pending", attempts: 1, lease_owner: null });
    // Delivered early by the queue (its delays are not exact): not sent, delayed again until due.
    const early = recordingBatch(queue.sent);
    await consumeDeliveryBatch(early.batch, { db: env.DB, settings: parseSettings(appEnv) });
    expect(early.retried[0].delaySeconds).toBeGreaterThan(0);
    expect((await deliveryRows())[0]).toMatchObject({ attempts: 1 });
    expect((await sink.state()).requests).toHaveLength(1);
  });

  it("takes only what one invocation's Free budget affords; the rest come back at once", async () => {
    await storeDue(15, parseSettings(sinkEnv()), Date.now());
    const appEnv = sinkEnv();
    const rows = await deliveryRows();
    const result = await consume(
      rows.map((row) => ({ id: row.id, owner: null })),
      appEnv,
    );
    expect(result.explicitAcks).toHaveLength(10);
    expect(result.retryMessages).toEqual(["msg-10", "msg-11", "msg-12", "msg-13", "msg-14"].map((msgId) => ({ msgId })));
    expect((await deliveryRows()).filter((row) => row.status === "delivered")).toHaveLength(10);
  });

  it("the dead-letter queue marks a delivery the queue gave up on dead", async () => {
    await storeDue(1, parseSettings(sinkEnv()), Date.now());
    const [row] = await deliveryRows();
    const result = await consume([{ id: row.id, owner: null }], sinkEnv(), `${QUEUE}-dlq`);
    expect(result.ackAll).toBe(true);
    expect((await deliveryRows())[0]).toMatchObject({ status: "dead", last_error: QUEUE_GAVE_UP });
  });

  it("the cron hands due deliveries to the queue (one claim, a sendBatch per 100), and drains them itself if the queue refuses", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    await storeDue(5, parseSettings(sinkEnv()), Date.now());
    const queue = keepingQueue();
    const appEnv = { ...sinkEnv(), DELIVERY_QUEUE: queue } as Env;
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), appEnv);
    expect(queue.sent).toHaveLength(5);
    expect((await deliveryRows()).every((row) => row.status === "pending" && /^dispatch:/.test(row.lease_owner))).toBe(true);
    expect((await sink.state()).requests).toHaveLength(0);
    const result = await consume(queue.sent, appEnv);
    expect(result.explicitAcks).toHaveLength(5);
    expect((await deliveryRows()).every((row) => row.status === "delivered")).toBe(true);

    await clearTables();
    await storeDue(3, parseSettings(sinkEnv()), Date.now());
    const refused = expectConsoleErrors(/sending \d deliveries to the delivery queue failed/);
    // On Free a tick affords a few deliveries beside the other jobs: the rest wait for the next tick,
    // and none spends an attempt it did not make.
    for (let tick = 0; tick < 3 && (await deliveryRows()).some((row) => row.status !== "delivered"); tick += 1) {
      await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), {
        ...sinkEnv(),
        DELIVERY_QUEUE: keepingQueue({ refuse: true }),
      } as Env);
    }
    expect(refused().length).toBeGreaterThanOrEqual(1);
    expect((await deliveryRows()).every((row) => row.status === "delivered" && row.attempts === 1)).toBe(true);
  });
});

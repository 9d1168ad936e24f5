// An outage's backlog (a diagnostic against the target, docs/decisions/070): the webhook
// receiver failed for a while and BENCH_BACKLOG_COUNT deliveries (10,000) are due, each with one failed
// attempt; the receiver is back. Measured under `wrangler dev`, on the Free plan's budget:
// - the cron alone: deliveries per scheduled run (each run one invocation), projected to a one-minute cron;
// - with the delivery queue (Miniflare's local Queues): runs of the cron dispatch the backlog to the
//   queue and its consumer delivers it; time from the receiver's return until the sink has every one.
// Both count what the sink verified: lost, duplicated (beyond at-least-once replays) and bad signatures.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { ROOT, startServer } from "../lib/servers.mjs";
import { queryD1, sinkControl } from "../lib/outbox.mjs";
import { atLeast, atMost } from "../lib/targets.mjs";

export const name = "backlog";
export const title = "An outage's backlog: the cron alone and with the delivery queue (wrangler dev, Free budget)";
export const order = 75;
const CRON_TICKS = 5;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The bench's Gatepost config with the delivery queue and its dead-letter queue on (wrangler.toml's commented blocks). */
function queueConfig(config) {
  const raw = JSON.parse(readFileSync(config, "utf8"));
  raw.queues = {
    producers: [{ binding: "DELIVERY_QUEUE", queue: "gatepost-deliveries" }],
    consumers: [
      {
        queue: "gatepost-deliveries",
        max_batch_size: 10,
        max_batch_timeout: 1,
        max_retries: 20,
        dead_letter_queue: "gatepost-deliveries-dlq",
      },
      { queue: "gatepost-deliveries-dlq", max_batch_size: 10 },
    ],
  };
  const dir = path.join(ROOT, "bench/.baseline/gatepost-queue");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "wrangler.json");
  writeFileSync(file, JSON.stringify(raw, null, 2));
  return file;
}

/**
 * `count` contact submissions, each with a webhook delivery due now after one failed attempt, in one
 * statement each; stored as after migration 0021 (a state), so the cron's backfill has nothing to move.
 */
function buildBacklog(server, count) {
  const now = Date.now();
  const at = new Date(now - 3_600_000).toISOString();
  queryD1(
    server,
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
     INSERT INTO submissions (id, form_id, fields, received_at, status, state)
     SELECT 'bench-' || i, 'contact', json_object('name', 'Bench ' || i, 'email', 'bench' || i || '@example.org', 'message', 'Backlog message ' || i), '${at}', 'accepted', 'pending' FROM n`,
  );
  queryD1(
    server,
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
     INSERT INTO deliveries (id, submission_id, form_id, destination, status, attempts, next_attempt_at, created_at, last_error)
     SELECT 'msg_backlog_' || i, 'bench-' || i, 'contact', 'webhook', 'pending', 1, ${now}, '${at}', 'network: connection refused' FROM n`,
  );
}

function verdict(state, count) {
  const ids = new Set(state.unique.map((u) => u.id));
  return {
    verified: state.unique.length,
    lost: count - ids.size,
    duplicates: state.unique.reduce((n, u) => n + u.duplicates, 0),
    invalidSignatures: state.requests.filter((r) => r.outcome === "rejected").length,
  };
}

async function cronAlone({ apps, settings, providers, count, log }) {
  const server = await startServer("wrangler dev", apps.gatepost, { bindings: settings.gatepost, name: "backlog-cron" });
  try {
    buildBacklog(server, count);
    await sinkControl(providers, "POST", "/reset");
    const perTick = [];
    const tickMs = [];
    for (let i = 0; i < CRON_TICKS; i++) {
      const before = (await sinkControl(providers, "GET", "/state")).unique.length;
      const started = Date.now();
      await server.tick();
      tickMs.push(Date.now() - started);
      perTick.push((await sinkControl(providers, "GET", "/state")).unique.length - before);
    }
    const mean = perTick.reduce((a, b) => a + b, 0) / perTick.length;
    log(`backlog: the cron alone delivered ${perTick.join(", ")} per run`);
    return {
      perTick,
      tickMs,
      meanPerTick: mean,
      projectedMinutes: mean > 0 ? Math.ceil(count / mean) : null,
      ...verdict(
        await sinkControl(providers, "GET", "/state"),
        perTick.reduce((a, b) => a + b, 0),
      ),
    };
  } finally {
    await server.stop();
  }
}

async function withQueue({ apps, settings, providers, count, log }) {
  const app = { ...apps.gatepost, config: queueConfig(apps.gatepost.config) };
  const server = await startServer("wrangler dev", app, { bindings: settings.gatepost, name: "backlog-queue" });
  const deadline = Date.now() + 600_000;
  try {
    buildBacklog(server, count);
    await sinkControl(providers, "POST", "/reset");
    const started = Date.now();
    let ticks = 0;
    let lastTick = 0;
    let state = await sinkControl(providers, "GET", "/state");
    let firstAt = null;
    while (state.unique.length < count) {
      if (Date.now() > deadline) throw new Error(`timed out with ${state.unique.length}/${count} delivered`);
      // A cron run dispatches what is due and not already handed to the queue; run it again each 10 s.
      if (Date.now() - lastTick > 10_000) {
        await server.tick().catch((error) => log(`backlog tick: ${error.message}`));
        ticks++;
        lastTick = Date.now();
      }
      await sleep(1_000);
      state = await sinkControl(providers, "GET", "/state");
      if (firstAt === null && state.unique.length > 0) firstAt = Date.now();
    }
    const seconds = (Date.now() - started) / 1000;
    const sending = (Date.now() - (firstAt ?? started)) / 1000;
    await sleep(3_000); // late duplicates, if any, arrive now
    const [rows] = queryD1(server, "SELECT SUM(status = 'delivered') AS delivered, SUM(status = 'dead') AS dead FROM deliveries");
    log(`backlog: with the queue, ${count} delivered in ${seconds} s over ${ticks} cron runs`);
    // The sink's full state is large (every payload); when it cannot be read again, the last reading counts.
    state = await sinkControl(providers, "GET", "/state").catch((error) => (log(`backlog: sink state: ${error.message}`), state));
    return {
      seconds,
      perSecond: Math.round((count / seconds) * 10) / 10,
      perSecondWhileSending: Math.round((count / sending) * 10) / 10,
      cronRuns: ticks,
      deliveredInD1: rows.delivered,
      deadInD1: rows.dead,
      ...verdict(state, count),
    };
  } finally {
    await server.stop();
  }
}

export async function run({ apps, settings, providers, log }) {
  const count = Number(process.env.BENCH_BACKLOG_COUNT || 10_000);
  await sinkControl(providers, "POST", "/mode", { mode: "normal" });
  return {
    count,
    cron: await cronAlone({ apps, settings, providers, count, log }),
    queue: await withQueue({ apps, settings, providers, count, log }),
  };
}

export function targets(d) {
  const q = d.queue;
  return [
    atLeast("Backlog with the delivery queue, deliveries/s (wrangler dev)", 100, { "wrangler dev": q?.perSecond ?? null }),
    atMost("Backlog with the delivery queue, lost + duplicates", 0, { "wrangler dev": q ? q.lost + q.duplicates : null }),
  ];
}

export function render(d) {
  const { cron, queue } = d;
  return [
    `A backlog of ${d.count} due webhook deliveries (each after one failed attempt), the receiver back.`,
    `- The cron alone, Free budget: ${cron.perTick.join(", ")} deliveries in ${CRON_TICKS} scheduled runs (${cron.tickMs.join(", ")} ms each);`,
    `  at ${cron.meanPerTick} a run and one run a minute, the backlog takes about ${cron.projectedMinutes} minutes. Lost ${cron.lost}, duplicates ${cron.duplicates}.`,
    `- With the delivery queue (local Queues in wrangler dev): all ${d.count} delivered in ${queue.seconds} s (${queue.perSecond}/s; ${queue.perSecondWhileSending}/s from the first`,
    `  delivery), ${queue.cronRuns} cron runs dispatching. Lost ${queue.lost}; duplicates ${queue.duplicates}; bad signatures ${queue.invalidSignatures}; delivered in D1 ${queue.deliveredInD1}, dead ${queue.deadInD1}.`,
  ];
}

export function summarize(d) {
  return { backlogQueuePerSecond: d.queue.perSecond, backlogCronPerTick: d.cron.meanPerTick };
}

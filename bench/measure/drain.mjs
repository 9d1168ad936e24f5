// The outbox drain (a diagnostic, no target): N submissions accepted through the public JSON API under
// `wrangler dev` while the webhook sink is down, so every first attempt fails and waits for its retry;
// then the sink comes up and the Worker's scheduled handler (the cron, run through wrangler dev's
// --test-scheduled) drains them: first the paused destination's probe, which resumes it, then the rest. Reports how long until the sink has verified every delivery, and
// anything lost, duplicated or badly signed.
import { queryD1, sinkControl } from "../lib/outbox.mjs";
import { startServer } from "../lib/servers.mjs";
import { standinToken } from "../lib/submit.mjs";

export const name = "drain";
export const title = "Outbox drain (wrangler dev, the Worker's scheduled handler)";
export const order = 70;
/** A diagnostic with no target: its section goes to bench/results/details.md. */
export const detail = true;
const CONCURRENCY = 8;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const sink = sinkControl;

export async function run({ apps, settings, providers, opts, log }) {
  const count = opts.outboxCount;
  const deadline = Date.now() + 300_000;
  const server = await startServer("wrangler dev", apps.gatepost, { bindings: settings.gatepost, name: "drain" });
  try {
    await sink(providers, "POST", "/mode", { mode: "down" });
    log(`drain: accepting ${count} submissions while the sink is down`);
    const accepted = [];
    let next = 0;
    const acceptStart = Date.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < count) {
          const i = next++;
          const res = await fetch(`${server.url}/api/forms/contact/submissions`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              name: `Bench ${i}`,
              email: `bench${i}@example.org`,
              message: `Benchmark message number ${i}.`,
              "cf-turnstile-response": standinToken(),
            }),
          });
          if (res.status !== 201) throw new Error(`submission ${i} was refused with ${res.status}: ${(await res.text()).slice(0, 200)}`);
          accepted.push((await res.json()).id);
        }
      }),
    );
    const acceptSeconds = (Date.now() - acceptStart) / 1000;
    // The first attempts (in waitUntil) fail against the closed sink until the destination pauses after
    // PAUSE_AFTER_FAILURES in a row (docs/decisions/071); the rest then wait unattempted. Wait for that
    // state: every delivery pending, each attempted once or held by the pause.
    let queued;
    for (;;) {
      [queued] = queryD1(
        server,
        `SELECT COUNT(*) AS n, SUM(attempts >= 1) AS attempted, MAX(next_attempt_at) AS due,
           (SELECT paused_at FROM destination_health WHERE form_id = 'contact' AND destination = 'webhook') AS paused
         FROM deliveries WHERE status = 'pending'`,
      );
      if (queued.n === count && (queued.attempted === count || queued.paused !== null)) break;
      if (Date.now() > deadline)
        throw new Error(`expected ${count} pending deliveries, each attempted or paused, found ${JSON.stringify(queued)}`);
      await sleep(1_000);
    }
    while (Date.now() < queued.due) await sleep(200);
    // The receiver is back. A paused destination waits for its probe (every PROBE_INTERVAL_MS, 5 minutes):
    // the bench moves that probe to now rather than wait, so the cron's own probe resumes it.
    if (queued.paused !== null)
      queryD1(server, `UPDATE destination_health SET probe_at = ${Date.now()} WHERE form_id = 'contact' AND destination = 'webhook'`);

    await sink(providers, "POST", "/mode", { mode: "normal" });
    log("drain: sink up; running the cron");
    const drainStart = Date.now();
    let ticks = 0;
    let state = await sink(providers, "GET", "/state");
    while (state.unique.length < count) {
      if (Date.now() > deadline) throw new Error(`timed out with ${state.unique.length}/${count} delivered`);
      // A slow tick (a loaded machine) is not fatal: the sink's count is what decides.
      await server.tick().catch((error) => log(`drain tick: ${error.message}`));
      ticks++;
      state = await sink(providers, "GET", "/state");
    }
    const drainSeconds = (Date.now() - drainStart) / 1000;
    const seen = new Set(state.unique.map((u) => u.payload?.submission?.id));
    const [rows] = queryD1(server, "SELECT SUM(status = 'delivered') AS delivered FROM deliveries");
    const failedJobs = server
      .output()
      .split("\n")
      .filter((line) => line.startsWith('{"maintenance"'))
      .flatMap((line) =>
        JSON.parse(line)
          .maintenance.filter((job) => !job.ok)
          .map((job) => `${job.name}: ${job.error}`),
      );
    return {
      submissions: count,
      firstAttempts: queued.attempted,
      paused: queued.paused !== null,
      accepted: accepted.length,
      acceptSeconds,
      drainSeconds,
      drainRatePerSecond: Math.round((count / drainSeconds) * 10) / 10,
      cronRuns: ticks,
      verifiedBySink: state.unique.length,
      invalidSignatures: state.requests.filter((r) => r.outcome === "rejected").length,
      duplicates: state.unique.reduce((n, u) => n + u.duplicates, 0),
      deliveredInD1: rows.delivered,
      lost: accepted.filter((id) => !seen.has(id)).length,
      failedJobs,
    };
  } finally {
    await sink(providers, "POST", "/mode", { mode: "normal" }).catch(() => {});
    await server.stop();
  }
}

export function render(d) {
  return [
    `${d.submissions} submissions accepted in ${d.acceptSeconds} s with the sink down (${d.firstAttempts} first attempts failed${d.paused ? ", then the destination paused and the rest waited unattempted; its probe was moved to the sink's return" : ""}); once it was up, ${d.cronRuns} run(s) of the`,
    `scheduled handler delivered them in ${d.drainSeconds} s (${d.drainRatePerSecond}/s). Verified by the sink: ${d.verifiedBySink};`,
    `lost: ${d.lost}; duplicates: ${d.duplicates}; bad signatures: ${d.invalidSignatures}; delivered in D1: ${d.deliveredInD1};`,
    `failed cron jobs: ${d.failedJobs.length === 0 ? "none" : d.failedJobs.join("; ")}.`,
  ];
}

export function summarize(d) {
  return { drainRatePerSecond: d.drainRatePerSecond, lost: d.lost, duplicates: d.duplicates };
}

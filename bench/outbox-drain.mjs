// Outbox drain benchmark: accept N submissions through the real app's JSON API (wrangler pages dev) while the
// webhook sink is down, bring the sink up, and time how long the scheduled drain Worker (wrangler dev
// --test-scheduled, same local D1) takes until the sink has verified every delivery. Loopback only,
// bounded in time. `node bench/outbox-drain.mjs [count]`; bench/run.mjs imports runOutboxDrainBench.
import { spawnSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { applyLocalMigrations, startPagesDev } from "../scripts/pages-dev.mjs";
import { startOutboxDrainDev } from "../scripts/outbox-drain-dev.mjs";
import { freePort } from "../scripts/process-group.mjs";
import { startTurnstileStandin } from "../tests/support/turnstile-standin.mjs";
import { startWebhookSink } from "../tests/support/webhook-sink.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const WRANGLER = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");
const SECRET = "1x0000000000000000000000000000000AA";

function standinToken(hostname) {
  const claims = { n: randomUUID(), a: "contact", h: hostname, t: new Date().toISOString() };
  return `XXXX.DUMMY.TOKEN.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
}

function queryD1(persistTo, sql) {
  const run = spawnSync(
    process.execPath,
    [WRANGLER, "d1", "execute", "DB", "--local", "--persist-to", persistTo, "--json", "--command", sql],
    {
      cwd: ROOT,
      env: { ...process.env, CI: "true" },
      encoding: "utf8",
    },
  );
  if (run.status !== 0) throw new Error(`d1 execute failed: ${run.stderr}`);
  return JSON.parse(run.stdout)[0].results;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// Every running bench's cleanups, so Ctrl-C also stops the detached wrangler process groups.
const running = new Set();

/** Runs the benchmark and resolves to its figures. Throws if anything is lost or it overruns `timeoutMs`. */
export async function runOutboxDrainBench({ count = 1000, concurrency = 8, timeoutMs = 600_000, log = console.log } = {}) {
  if (!existsSync(path.join(ROOT, "build/server/index.js"))) throw new Error("build/ is missing: run `npm run build` first");
  const deadline = Date.now() + timeoutMs;
  const persistTo = path.join(ROOT, ".wrangler", `bench-outbox-${process.pid}`);
  rmSync(persistTo, { recursive: true, force: true });
  mkdirSync(persistTo, { recursive: true });
  applyLocalMigrations({ persistTo });
  const stops = [() => Promise.resolve(rmSync(persistTo, { recursive: true, force: true }))];
  running.add(stops);
  try {
    const standin = await startTurnstileStandin();
    stops.push(() => standin.close());
    const secret = `whsec_${randomBytes(32).toString("base64")}`;
    const sink = await startWebhookSink({ secret });
    stops.push(() => sink.close());
    await sink.setMode("down");
    const webhook = { CONTACT_WEBHOOK_URL: sink.url, CONTACT_WEBHOOK_SECRET: secret, ALLOW_LOOPBACK_WEBHOOKS: "true" };
    const app = await startPagesDev({
      port: await freePort(),
      persistTo,
      log: "pipe",
      bindings: {
        TURNSTILE_SITE_KEY: "1x00000000000000000000AA",
        TURNSTILE_SECRET_KEY: SECRET,
        TURNSTILE_VERIFY_URL: standin.verifyUrl,
        TURNSTILE_SCRIPT_URL: standin.scriptUrl,
        FORM_SIGNING_SECRET: randomBytes(32).toString("hex"),
        FORM_RATE_LIMIT_PER_MINUTE: String(count * 10),
        FORM_RATE_LIMIT_PER_DAY: String(count * 10),
        ...webhook,
      },
    });
    stops.push(() => app.stop());

    log(`accepting ${count} submissions while the sink is down…`);
    const acceptStart = Date.now();
    const accepted = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) {
          const i = next++;
          const body = JSON.stringify({
            name: `Bench ${i}`,
            email: `bench${i}@example.org`,
            message: `Benchmark message number ${i}.`,
            "cf-turnstile-response": standinToken(new URL(app.url).hostname),
          });
          // The public JSON API: the same accept pipeline as the page, without the page's stamp.
          const res = await fetch(`${app.url}/api/forms/contact/submissions`, {
            method: "POST",
            // One address per submission; the limits are raised too, so rate limiting does not shape the run.
            headers: { "content-type": "application/json", "CF-Connecting-IP": `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` },
            body,
          });
          if (res.status !== 201) throw new Error(`submission ${i} was refused with ${res.status}: ${(await res.text()).slice(0, 200)}`);
          const { id } = await res.json();
          accepted.push(id);
        }
      }),
    );
    const acceptSeconds = (Date.now() - acceptStart) / 1000;

    // Every first attempt failed against the closed port; wait until all retries are due (10 s + 20 %).
    await sleep(13_000);
    const [queued] = queryD1(
      persistTo,
      "SELECT COUNT(*) AS n, SUM(attempts) AS attempts, MAX(next_attempt_at) AS due FROM deliveries WHERE status = 'pending'",
    );
    if (queued.n !== count) throw new Error(`expected ${count} pending deliveries, found ${queued.n}`);
    while (Date.now() < queued.due) await sleep(200);

    const runs = [];
    const drain = await startOutboxDrainDev({ persistTo, bindings: webhook, intervalMs: 0, onReport: (results) => runs.push(results) });
    stops.push(() => drain.stop());
    await sink.setMode("normal");
    log("sink up; draining…");
    const drainStart = Date.now();
    let state = sink.snapshot();
    while (state.unique.length < count) {
      if (Date.now() > deadline) throw new Error(`timed out with ${state.unique.length}/${count} delivered`);
      // A slow tick (a loaded machine) is not fatal: the sink's count is what decides.
      await drain.tick().catch((error) => log(`drain tick: ${error.message}`));
      state = sink.snapshot();
    }
    const drainSeconds = (Date.now() - drainStart) / 1000;

    const seen = new Set(state.unique.map((u) => u.payload?.submission?.id));
    const lost = accepted.filter((id) => !seen.has(id)).length;
    const [rows] = queryD1(persistTo, "SELECT SUM(status = 'delivered') AS delivered, COUNT(*) AS total FROM deliveries");
    return {
      submissions: count,
      accepted: accepted.length,
      acceptSeconds,
      drainSeconds,
      drainRatePerSecond: Math.round((count / drainSeconds) * 10) / 10,
      verifiedBySink: state.unique.length,
      invalidSignatures: state.requests.filter((r) => r.outcome === "rejected").length,
      duplicates: state.unique.reduce((n, u) => n + u.duplicates, 0),
      deliveredInD1: rows.delivered,
      cronRuns: runs.length,
      failedJobs: runs
        .flat()
        .filter((job) => !job.ok)
        .map((job) => `${job.name}: ${job.error}`),
      lost,
    };
  } finally {
    running.delete(stops);
    for (const stop of stops.reverse()) await stop().catch(() => {});
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.on(signal, async () => {
      for (const stops of running) for (const stop of stops.reverse()) await stop().catch(() => {});
      process.exit(130);
    });
  }
  const count = Number(process.argv[2] ?? 1000);
  const result = await runOutboxDrainBench({ count });
  console.log(JSON.stringify(result, null, 2));
  console.log(
    `\nDrained ${result.verifiedBySink}/${result.submissions} in ${result.drainSeconds.toFixed(1)} s: ${result.drainRatePerSecond}/s, lost ${result.lost}.`,
  );
  process.exit(result.lost === 0 ? 0 : 1);
}

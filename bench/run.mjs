// `npm run bench`: Gatepost against a bare Remix app on Workers built from the same packages, in the
// same run, loopback only, every phase bounded in time. This file only orchestrates: it builds the
// apps (lib/apps.mjs), starts the stand-in providers, runs each measurement module of bench/measure/
// in `order`, and hands the results to lib/report.mjs, which writes docs/performance.md, and to
// bench/results/latest.json and history.jsonl.
//
// A measurement is a module in bench/measure/ (found there, no list to edit) exporting:
//   name, order          its key in the results, and when it runs (Lighthouse first, while quiet)
//   perRuntime           true: run once per runtime (`wrangler dev`, then Miniflare) with `servers`,
//                        a pool that starts each app once per runtime for all such modules
//   run(ctx)             → its data; ctx = { apps, settings, providers, servers?, opts, between, log }
//   targets(data)?       → [{ name, asks, measured, verdict }] (lib/targets.mjs)
//   render(data)         → markdown lines for its section; summarize(data)? → its line in history
//   detail?              true: a diagnostic with no target, rendered to bench/results/details.md
//   renderDetail(data)?  → the module's diagnostic lines for bench/results/details.md
// Knobs: BENCH_DURATION (s of load per subject, split over BENCH_ROUNDS alternating rounds; 12 and 3),
// BENCH_PAIRED_ROUNDS and BENCH_PAIRED_SECONDS (16 rounds of 2 s for ssr, accept and console, whose 0.9
// and 0.95 targets sit inside one round's noise on two cores: pairs of rounds moved from 0.73 to 1.27 within
// one run, and a median of 10 still moved from 0.85 to 0.95 between two runs of the same code), BENCH_CONNECTIONS (10), LH_RUNS (3
// counted runs per page), LH_MIN_INDEX (1500) and LH_MAX_OTHER (25 %) (lib/lighthouse-verdict.mjs),
// PROFILE_TOP (8 functions) and PROFILE_SAVE (a folder for the raw profiles; lib/profile.mjs),
// LH_TRIAL_BLOCK_MS (250), BENCH_OUTBOX_COUNT (200),
// BENCH_PIN=0 (no CPU pinning, lib/pin.mjs), BENCH_SKIP_BUILD=1 (reuse build/), BENCH_ONLY=ssr,accept and BENCH_RUNTIMES=miniflare for a partial
// run, which writes bench/results/latest.* but neither docs/performance.md nor the history.
import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { hashPassword } from "../scripts/hash-password.mjs";
import { prepareApps } from "./lib/apps.mjs";
import { cpuTicks, hostSince } from "./lib/host.mjs";
import { pinBench, pinning } from "./lib/pin.mjs";
import { startProviders } from "./lib/providers.mjs";
import { renderReport, summarizeRun } from "./lib/report.mjs";
import { ROOT, RUNTIMES, serverPool, stopAllServers } from "./lib/servers.mjs";

const env = process.env;
const DURATION = Number(env.BENCH_DURATION || 12);
const ROUNDS = Number(env.BENCH_ROUNDS || 3);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS || 10);
const opts = {
  rounds: ROUNDS,
  // Page views, accepts and the console form: more, shorter rounds, so each pair runs closer together in time.
  paired: {
    rounds: Number(env.BENCH_PAIRED_ROUNDS || 16),
    load: { duration: Number(env.BENCH_PAIRED_SECONDS || 2), connections: CONNECTIONS },
  },
  load: { duration: Math.max(2, Math.round(DURATION / ROUNDS)), connections: CONNECTIONS },
  lhRuns: Number(env.LH_RUNS || 3),
  outboxCount: Number(env.BENCH_OUTBOX_COUNT || 200),
};
const KNOBS = [
  "BENCH_DURATION",
  "BENCH_ROUNDS",
  "BENCH_PAIRED_ROUNDS",
  "BENCH_PAIRED_SECONDS",
  "BENCH_CONNECTIONS",
  "LH_RUNS",
  "LH_MIN_INDEX",
  "LH_MAX_OTHER",
  "LH_TRIAL_BLOCK_MS",
  "BENCH_OUTBOX_COUNT",
  "BENCH_PIN",
  "BENCH_SKIP_BUILD",
  "BENCH_ONLY",
  "BENCH_RUNTIMES",
  "PROFILE_TOP",
  "PROFILE_SAVE",
];
const HARD_LIMIT_MS = 45 * 60_000;
const log = (...args) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...args);

const cleanups = [];
async function stopEverything() {
  for (const stop of cleanups.splice(0).reverse()) await stop().catch((e) => log("stop failed:", e.message));
  await stopAllServers();
}
const watchdog = setTimeout(async () => {
  log(`over ${HARD_LIMIT_MS / 60_000} minutes: stopping everything`);
  await stopEverything();
  process.exit(2);
}, HARD_LIMIT_MS);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, async () => (await stopEverything(), process.exit(130)));

/** The measurement modules of bench/measure/, in order, narrowed by BENCH_ONLY. */
async function loadMeasurements() {
  const dir = new URL("./measure/", import.meta.url);
  const modules = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".mjs"))) modules.push(await import(new URL(file, dir).href));
  const only = env.BENCH_ONLY?.split(",");
  return modules.filter((m) => !only || only.includes(m.name)).sort((a, b) => a.order - b.order);
}

/**
 * The settings each app runs with: Gatepost with and without its webhook destination (and, as a
 * deployed site has them, an admin password hash and a session secret), the bare apps.
 */
async function appSettings(providers, webhookSecret) {
  const gatepost = {
    ADMIN_PASSWORD_HASH: await hashPassword(randomBytes(18).toString("base64url")),
    SESSION_SECRET: randomBytes(32).toString("base64url"),
    // The admin API makes the console form the bench measures (measure/console-form.mjs).
    ADMIN_API_TOKEN: randomBytes(32).toString("base64url"),
    SETTINGS_ENCRYPTION_KEY: randomBytes(32).toString("base64url"),
    TURNSTILE_SITE_KEY: "1x00000000000000000000AA",
    TURNSTILE_SECRET_KEY: "1x0000000000000000000000000000000AA",
    TURNSTILE_VERIFY_URL: providers.verifyUrl,
    TURNSTILE_SCRIPT_URL: providers.scriptUrl,
    FORM_SIGNING_SECRET: randomBytes(32).toString("hex"),
    // Settings, not code: the load test's posts all come from one address and arrive at once.
    FORM_MIN_FILL_SECONDS: "0",
    FORM_RATE_LIMIT_PER_MINUTE: "1000000000",
    FORM_RATE_LIMIT_PER_DAY: "1000000000",
    ALLOW_LOOPBACK_WEBHOOKS: "true",
    CONTACT_WEBHOOK_URL: providers.sinkUrl,
    CONTACT_WEBHOOK_SECRET: webhookSecret,
    // The Worker as deployed: wrangler dev's own workaround for refused bodies off (docs/decisions/098).
    LOCAL_DRAIN_BODIES: "",
  };
  const baseline = {
    TURNSTILE_SECRET_KEY: gatepost.TURNSTILE_SECRET_KEY,
    TURNSTILE_VERIFY_URL: providers.verifyUrl,
    BENCH_WEBHOOK_URL: providers.sinkUrl,
    BENCH_WEBHOOK_SECRET: webhookSecret,
  };
  return { gatepost, noDestination: { ...gatepost, CONTACT_WEBHOOK_URL: "", CONTACT_WEBHOOK_SECRET: "" }, baseline };
}

/** Runs each module; a module that fails is reported as failed (its targets "not measured"), the rest go on. */
async function runModule(module, ctx) {
  try {
    return await module.run(ctx);
  } catch (error) {
    log(`${module.name} failed: ${error.stack ?? error.message}`);
    return { failed: String(error.message).slice(0, 500) };
  }
}

async function main() {
  const startedAt = new Date();
  const ticksAtStart = cpuTicks();
  const loadAtStart = os.loadavg();
  const measurements = await loadMeasurements();
  const runtimes = env.BENCH_RUNTIMES ? env.BENCH_RUNTIMES.split(",") : RUNTIMES;
  const apps = prepareApps({ skipBuild: Boolean(env.BENCH_SKIP_BUILD), log });
  const webhookSecret = `whsec_${randomBytes(32).toString("base64")}`;
  const providers = await startProviders({ sinkSecret: webhookSecret });
  cleanups.push(providers.stop);
  const ctx = { apps, settings: await appSettings(providers, webhookSecret), providers, opts, log, between: providers.reset };

  const data = {};
  let pinned = false;
  for (let i = 0; i < measurements.length; i++) {
    // Lighthouse runs first on the whole machine; the load runs after it keep the load generator and
    // the stand-ins off the servers' core (lib/pin.mjs).
    if (measurements[i].name !== "lighthouse" && !pinned) {
      pinBench([providers.pgid]);
      pinned = true;
    }
    if (!measurements[i].perRuntime) {
      log(`measuring ${measurements[i].name}`);
      data[measurements[i].name] = await runModule(measurements[i], ctx);
      continue;
    }
    // Consecutive per-runtime modules share one pool of servers per runtime.
    const block = [];
    while (measurements[i]?.perRuntime) block.push(measurements[i++]);
    i--;
    for (const module of block) data[module.name] = {};
    for (const runtime of runtimes) {
      const servers = serverPool(runtime, apps, ctx.settings);
      try {
        for (const module of block) {
          log(`measuring ${module.name} under ${runtime}`);
          data[module.name][runtime] = await runModule(module, { ...ctx, servers });
        }
      } finally {
        await servers.stop();
      }
    }
  }
  await stopEverything();

  const results = {
    date: startedAt.toISOString(),
    finished: new Date().toISOString(),
    commit: spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).stdout.trim(),
    command: [...KNOBS.filter((k) => env[k]).map((k) => `${k}=${env[k]}`), "npm run bench"].join(" "),
    host: {
      cores: os.cpus().length,
      pinned: pinning(),
      node: process.version,
      loadAverage: { start: loadAtStart.map((n) => n.toFixed(2)), end: os.loadavg().map((n) => n.toFixed(2)) },
      ...hostSince(ticksAtStart),
    },
    opts,
    runtimes,
    data,
  };
  const partial = Boolean(env.BENCH_ONLY || env.BENCH_RUNTIMES);
  const historyFile = path.join(ROOT, "bench/results/history.jsonl");
  const earlier = existsSync(historyFile)
    ? readFileSync(historyFile, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];
  const summary = summarizeRun(results, measurements);
  const { report, details } = renderReport(results, measurements, partial ? earlier : [...earlier, summary]);
  mkdirSync(path.join(ROOT, "bench/results"), { recursive: true });
  writeFileSync(path.join(ROOT, "bench/results/latest.json"), JSON.stringify(results, null, 2));
  writeFileSync(path.join(ROOT, "bench/results/latest.md"), `${report}\n${details}`);
  if (partial) {
    log("partial run: bench/results/latest.json and latest.md (docs/performance.md and the history untouched)");
    return;
  }
  writeFileSync(path.join(ROOT, "docs/performance.md"), report);
  writeFileSync(path.join(ROOT, "bench/results/details.md"), details);
  appendFileSync(historyFile, `${JSON.stringify(summary)}\n`);
  log("done: docs/performance.md, bench/results/details.md, latest.json, a line in bench/results/history.jsonl");
}

try {
  await main();
} finally {
  await stopEverything();
  clearTimeout(watchdog);
}

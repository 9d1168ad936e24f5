// `npm run bench`: Gatepost against a bare Remix app built from the same packages, in one run, loopback only, every
// phase bounded. It builds the apps, starts the stand-ins, runs each module of bench/measure/ in `order`, and hands
// the results to lib/report.mjs (docs/performance.md, bench/results/).
// A module exports name, order, perRuntime (run once per runtime with a shared `servers` pool), run(ctx), and
// targets(data)?, render(data), summarize(data)?, detail?, renderDetail(data)?.
// Knobs: BENCH_DURATION and BENCH_ROUNDS (12 s, 3), BENCH_PAIRED_ROUNDS and BENCH_PAIRED_SECONDS (16 of 2 s for ssr,
// accept and console, whose targets sit inside one round's noise on two cores), BENCH_CONNECTIONS, LH_RUNS,
// LH_MIN_INDEX, LH_MAX_OTHER, LH_TRIAL_BLOCK_MS, PROFILE_TOP, PROFILE_SAVE, BENCH_OUTBOX_COUNT, BENCH_PIN=0,
// BENCH_SKIP_BUILD=1; BENCH_ONLY=ssr,accept and BENCH_RUNTIMES=miniflare run a part, written to bench/results/ only.
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

/** Each app's settings: Gatepost with and without its webhook (and, as deployed, an admin hash and session secret), the bare apps. */
async function appSettings(providers, webhookSecret) {
  const gatepost = {
    ADMIN_PASSWORD_HASH: await hashPassword(randomBytes(18).toString("base64url")),
    SESSION_SECRET: randomBytes(32).toString("base64url"),
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
    // The Worker as deployed: wrangler dev's workaround for refused bodies off (ADR 098).
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
    // Lighthouse first on the whole machine; then the servers get their own core (lib/pin.mjs).
    if (measurements[i].name !== "lighthouse" && !pinned) {
      pinBench([providers.pgid]);
      pinned = true;
    }
    if (!measurements[i].perRuntime) {
      log(`measuring ${measurements[i].name}`);
      data[measurements[i].name] = await runModule(measurements[i], ctx);
      continue;
    }
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

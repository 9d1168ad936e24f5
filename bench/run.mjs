// `npm run bench`: Gatepost against a bare Remix Cloudflare app built from the same packages, in the
// same run and the same runtime, on loopback only, every phase bounded in time. Results go to
// bench/results/latest.json and between the bench markers of docs/performance.md.
// BENCH_DURATION (s per load test, split over BENCH_ROUNDS alternating rounds; defaults 12 and 3), BENCH_CONNECTIONS (default 10), LH_RUNS (default 3),
// BENCH_OUTBOX_COUNT (default 200), BENCH_SKIP_BUILD=1 to reuse build/, BENCH_SKIP_LIGHTHOUSE=1.
// Latency mode: BENCH_D1_LATENCY_MS (default 30) delays every D1 round trip in the bench's own runtime,
// and Gatepost at BENCH_TWO_TRIPS_REF (default be7e4d1, the last commit with two trips before the
// answer) runs beside this checkout; BENCH_SKIP_LATENCY=1 skips it. Each run appends a summary line to
// bench/results/history.jsonl.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { BASELINE_CLIENT, BASELINE_DIR, buildBaseline } from "./build-baseline.mjs";
import { measureAllPages, measureRouteJs } from "./js-bytes.mjs";
import { auditGatepost } from "./lighthouse.mjs";
import { loadGet, loadPost, warmUp } from "./lib/load.mjs";
import { profileGets, profileRequests } from "./lib/profile.mjs";
import { judgeTargets, pairedRatio, summarizeRun, writeReport } from "./lib/report.mjs";
import {
  applyMigrations,
  freePort,
  freshState,
  ROOT,
  startFreshMiniflare as startFreshServer,
  startMiniflare,
  startPagesDev,
  stopStartedServers,
  workerdCpuMs,
} from "./lib/servers.mjs";
import { baselineBodies, gatepostBodies } from "./lib/submit.mjs";
import { startProviders } from "./lib/providers.mjs";
import { cpuTicks, stealSince } from "./lib/steal.mjs";

const DURATION = Number(process.env.BENCH_DURATION || 12);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const PROFILE_SECONDS = 5;
const CPU_SECONDS = 4;
const CPU_ROUNDS = 3;
const SECRET = "1x0000000000000000000000000000000AA";
const LATENCY_MS = Number(process.env.BENCH_D1_LATENCY_MS || 30);
const TWO_TRIPS_REF = process.env.BENCH_TWO_TRIPS_REF || "be7e4d1";
const HARD_LIMIT_MS = 30 * 60_000;
const log = (...args) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...args);

const stops = [];
async function stopAll() {
  while (stops.length > 0)
    await stops
      .pop()()
      .catch((e) => log("stop failed:", e.message));
  await stopStartedServers();
}
const watchdog = setTimeout(async () => {
  log(`over ${HARD_LIMIT_MS / 60_000} minutes: stopping everything`);
  await stopAll();
  process.exit(2);
}, HARD_LIMIT_MS);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, async () => (await stopAll(), process.exit(130)));

/** Lets after-response work (first webhook deliveries, waitUntil) finish before the next measurement. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * The workerd process's CPU ms per completed request while `runLoad` (autocannon) runs, once the
 * previous test's after-response work has finished and the providers have forgotten it. Work left in
 * waitUntil when the last answer is sent (first webhook deliveries) is counted too. Throws when any
 * answer was not `code`: a run that was refused measures the wrong path.
 */
async function cpuPerRequest(port, runLoad, code, between) {
  await settle();
  await between();
  const before = workerdCpuMs(port);
  const load = await runLoad();
  if (Object.keys(load.statusCodes).some((c) => c !== code) || load.errors > 0) {
    throw new Error(`127.0.0.1:${port} answered ${JSON.stringify(load.statusCodes)} while measured`);
  }
  await settle();
  return (workerdCpuMs(port) - before) / load.requests;
}

/**
 * Fails the run unless the baseline's /submit?counted reference really makes its rate-limit round
 * trip: its redirect carries the count it read back from D1. Until 23 November it counted nothing:
 * the action looked for the query in the raw URL, which Remix hands it rewritten as "?counted=".
 */
async function assertCounts(countedUrl, makeBody, origin) {
  const res = await fetch(countedUrl, {
    method: "POST",
    redirect: "manual",
    body: makeBody(),
    headers: { "content-type": "application/x-www-form-urlencoded", origin },
  });
  await res.arrayBuffer();
  const count = Number(/[?&]count=(\d+)/.exec(res.headers.get("location") ?? "")?.[1]);
  if (res.status !== 303 || !(count >= 1))
    throw new Error(`${countedUrl} did not count its hit in D1 (${res.status}, ${res.headers.get("location")})`);
}

/** Medians of rate and latency over rounds; status codes and errors summed. */
function combineRounds(list) {
  const statusCodes = {};
  for (const r of list) for (const [code, n] of Object.entries(r.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  return {
    rps: median(list.map((r) => r.rps)),
    p50: median(list.map((r) => r.p50)),
    p99: median(list.map((r) => r.p99)),
    requests: list.reduce((n, r) => n + r.requests, 0),
    errors: list.reduce((n, r) => n + r.errors, 0),
    statusCodes,
    perRound: list.map((r) => r.rps),
  };
}

async function measureRuntime(runtime, settings, between) {
  const oursState = freshState(`ours-${runtime}`);
  const baseState = freshState(`base-${runtime}`);
  applyMigrations({ cwd: ROOT, persistTo: oursState });
  applyMigrations({ cwd: BASELINE_DIR, persistTo: baseState });
  const [oursPort, basePort] = [await freePort(), await freePort()];
  const start = runtime === "pages dev" ? startPagesDev : startMiniflare;
  const ours = await start({
    cwd: ROOT,
    functionFile: "[[path]].ts",
    port: oursPort,
    bindings: settings.ours,
    persistTo: oursState,
    readyPath: "/healthz",
  });
  stops.push(ours.stop);
  const base = await start({
    cwd: BASELINE_DIR,
    functionFile: "[[path]].js",
    port: basePort,
    bindings: settings.base,
    persistTo: baseState,
  });
  stops.push(base.stop);
  // The same app with no webhook destination: the accept path alone, without the first delivery.
  const bareState = freshState(`bare-${runtime}`);
  applyMigrations({ cwd: ROOT, persistTo: bareState });
  const bare = await start({
    cwd: ROOT,
    functionFile: "[[path]].ts",
    port: await freePort(),
    bindings: settings.oursNoDestination,
    persistTo: bareState,
    readyPath: "/healthz",
  });
  stops.push(bare.stop);
  log(`${runtime}: Gatepost on ${ours.url}, baseline on ${base.url}`);

  const signing = { signingSecret: settings.ours.FORM_SIGNING_SECRET };
  const oursBody = await gatepostBodies(`${ours.url}/f/contact`, "contact", signing);
  const bareBody = await gatepostBodies(`${bare.url}/f/contact`, "contact", signing);
  const baseBody = baselineBodies(`${base.url}/submit`);
  const countedUrl = `${base.url}/submit?counted`;
  const deliveredUrl = `${base.url}/submit?delivered`;
  const post = (body, origin) => () => ({
    method: "POST",
    body: body(),
    headers: { "content-type": "application/x-www-form-urlencoded", origin },
  });
  await warmUp(`${base.url}/`);
  await warmUp(`${ours.url}/`);
  await warmUp(`${ours.url}/f/contact`);
  await warmUp(`${base.url}/submit`, post(baseBody, base.url));
  await warmUp(countedUrl, post(baseBody, base.url));
  await assertCounts(countedUrl, baseBody, base.url);
  await warmUp(deliveredUrl, post(baseBody, base.url));
  await warmUp(`${ours.url}/f/contact`, post(oursBody, ours.url));
  await warmUp(`${bare.url}/f/contact`, post(bareBody, bare.url));

  // Rounds alternate baseline and Gatepost, so a change in the shared machine's load hits both sides
  // alike; each figure is the median over the rounds. Every other round runs its tests in reverse
  // order, so no request type always follows the same one. Before each test the previous one's
  // after-response work (first webhook deliveries) is let finish, and the providers forget their
  // history, so no test pays for the one before it.
  const opts = { duration: Math.max(2, Math.round(DURATION / ROUNDS)), connections: CONNECTIONS };
  const rounds = {
    ssr: { baseline: [], home: [], contact: [] },
    submit: { baseline: [], counted: [], delivered: [], ours: [], noDestination: [] },
  };
  const tests = [
    [rounds.ssr.baseline, () => loadGet(`${base.url}/`, opts)],
    [rounds.ssr.home, () => loadGet(`${ours.url}/`, opts)],
    [rounds.ssr.contact, () => loadGet(`${ours.url}/f/contact`, opts)],
    [rounds.submit.baseline, () => loadPost(`${base.url}/submit`, baseBody, { ...opts, headers: { origin: base.url } })],
    [rounds.submit.counted, () => loadPost(countedUrl, baseBody, { ...opts, headers: { origin: base.url } })],
    [rounds.submit.delivered, () => loadPost(deliveredUrl, baseBody, { ...opts, headers: { origin: base.url } })],
    [rounds.submit.ours, () => loadPost(`${ours.url}/f/contact`, oursBody, { ...opts, headers: { origin: ours.url } })],
    [rounds.submit.noDestination, () => loadPost(`${bare.url}/f/contact`, bareBody, { ...opts, headers: { origin: bare.url } })],
  ];
  for (let round = 0; round < ROUNDS; round++) {
    log(`${runtime}: round ${round + 1}/${ROUNDS}`);
    for (const [list, run] of round % 2 === 0 ? tests : [...tests].reverse()) {
      await settle();
      await between();
      list.push(await run());
    }
  }
  const result = { runtime, rounds: ROUNDS, secondsPerRound: opts.duration, ssr: {}, submit: {} };
  for (const kind of ["ssr", "submit"]) {
    for (const [name, list] of Object.entries(rounds[kind])) result[kind][name] = combineRounds(list);
  }
  for (const [kind, group] of Object.entries({ ssr: result.ssr, submit: result.submit })) {
    for (const [name, r] of Object.entries(group))
      log(`${runtime} ${kind} ${name}: ${r.rps} req/s p50 ${r.p50} p99 ${r.p99} ${JSON.stringify(r.statusCodes)}`);
  }
  // A run where anything was refused or failed measures the wrong path: never report it.
  const expect = (name, r, code) => {
    const other = Object.keys(r.statusCodes).filter((c) => c !== code);
    if (other.length > 0 || r.errors > 0 || r.requests === 0) {
      throw new Error(`${runtime} ${name}: expected only ${code}, got ${JSON.stringify(r.statusCodes)} and ${r.errors} errors`);
    }
  };
  for (const [name, r] of Object.entries(result.ssr)) expect(`GET ${name}`, r, "200");
  for (const [name, r] of Object.entries(result.submit)) expect(`POST ${name}`, r, "303");
  const paired = (ours, base) => Math.round(pairedRatio(ours, base).median * 100) / 100;
  result.ratios = {
    homeRps: paired(result.ssr.home, result.ssr.baseline),
    contactRps: paired(result.ssr.contact, result.ssr.baseline),
    submitRps: paired(result.submit.ours, result.submit.baseline),
    submitNoDestinationRps: paired(result.submit.noDestination, result.submit.baseline),
    countedRps: paired(result.submit.counted, result.submit.baseline),
    submitVsCountedRps: paired(result.submit.ours, result.submit.counted),
    submitNoDestinationVsCountedRps: paired(result.submit.noDestination, result.submit.counted),
    submitVsDeliveredRps: paired(result.submit.ours, result.submit.delivered),
  };
  for (let i = 0; i < 3; i++) await stops.pop()();
  return result;
}

/** One app in workerd through Miniflare on a fresh, migrated D1 of its own, stopped with the rest. */
async function startFreshMiniflare(options) {
  const server = await startFreshServer(options);
  stops.push(server.stop);
  return server;
}

/**
 * CPU per page view under load in workerd through Miniflare: the workerd process's own CPU time
 * (/proc) for the baseline's `/` and Gatepost's `/` and `/f/contact`, in alternating rounds. Steadier
 * than req/s on a shared VM, where a neighbour's load moves throughput between rounds.
 */
async function measurePageCpu(settings, between) {
  const base = await startFreshMiniflare({
    cwd: BASELINE_DIR,
    bindings: settings.base,
    name: "page-cpu-base",
    inspectorPort: await freePort(),
  });
  const ours = await startFreshMiniflare({ cwd: ROOT, bindings: settings.ours, name: "page-cpu-ours", inspectorPort: await freePort() });
  const pages = { baseline: [base, "/"], home: [ours, "/"], contact: [ours, "/f/contact"] };
  for (const [server, pathname] of Object.values(pages)) await warmUp(`${server.url}${pathname}`, {}, 100);
  const cpu = { baseline: [], home: [], contact: [] };
  for (let round = 0; round < CPU_ROUNDS; round++) {
    const order = Object.entries(pages);
    for (const [name, [server, pathname]] of round % 2 === 0 ? order : order.reverse()) {
      const get = () => loadGet(`${server.url}${pathname}`, { duration: CPU_SECONDS, connections: CONNECTIONS });
      cpu[name].push(await cpuPerRequest(server.port, get, "200", between));
    }
  }
  // Where a view's time goes: a sampling profile of each page's isolate under the same load, grouped
  // by package, so the report shows what separates Gatepost's views from the baseline's.
  const profiles = {};
  for (const [name, [server, pathname]] of Object.entries(pages)) {
    await settle();
    profiles[name] = await profileGets(server, pathname, { duration: PROFILE_SECONDS, connections: CONNECTIONS });
  }
  for (let i = 0; i < 2; i++) await stops.pop()();
  const round2 = (v) => Math.round(v * 100) / 100;
  return Object.fromEntries(
    Object.entries(cpu).map(([name, list]) => [
      name,
      {
        processCpuMsPerView: round2(median(list)),
        perRound: list.map(round2),
        isolateCpuMsPerView: profiles[name].cpuMsPerRequest,
        topGroups: profiles[name].topGroups.slice(0, 5),
      },
    ]),
  );
}

// Four apps in workerd through Miniflare: Gatepost with and without its webhook destination, the
// bare action, and the bare action with the rate-limit round trip (/submit?counted).
const CPU_SIDES = {
  ours: { gatepost: true, settings: "ours", path: "/f/contact" },
  noDestination: { gatepost: true, settings: "oursNoDestination", path: "/f/contact" },
  baseline: { gatepost: false, settings: "base", path: "/submit" },
  counted: { gatepost: false, settings: "base", path: "/submit?counted" },
};

/**
 * CPU per accepted submission under load (autocannon, as the throughput figures), two ways: the
 * workerd process's own CPU time (/proc; the app isolate plus local D1, without the provider) in
 * alternating rounds, and a sampling profile of the app isolate.
 */
async function profileSubmitPath(settings, between) {
  const servers = {};
  for (const [side, spec] of Object.entries(CPU_SIDES)) {
    const cwd = spec.gatepost ? ROOT : BASELINE_DIR;
    const inspectorPort = await freePort();
    const server = await startFreshMiniflare({ cwd, bindings: settings[spec.settings], name: `profile-${side}`, inspectorPort });
    const { port, bundleFile } = server;
    const url = `${server.url}${spec.path}`;
    const makeBody = spec.gatepost
      ? await gatepostBodies(url, "contact", { signingSecret: settings.ours.FORM_SIGNING_SECRET })
      : baselineBodies(url);
    const send = async () => {
      const res = await fetch(url, {
        method: "POST",
        redirect: "manual",
        body: makeBody(),
        headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url },
      });
      await res.arrayBuffer();
      if (res.status !== 303) throw new Error(`${side} answered ${res.status} while profiling`);
    };
    for (let i = 0; i < 20; i++) await send();
    if (side === "counted") await assertCounts(url, makeBody, server.url);
    servers[side] = { spec, port, inspectorPort, bundleFile, send, url, makeBody, origin: server.url, cpu: [] };
  }
  for (let round = 0; round < CPU_ROUNDS; round++) {
    // Every other round in reverse, as the throughput rounds: no app always follows the same one.
    const order = Object.values(servers);
    for (const s of round % 2 === 0 ? order : order.reverse()) {
      const post = () => loadPost(s.url, s.makeBody, { duration: CPU_SECONDS, connections: CONNECTIONS, headers: { origin: s.origin } });
      s.cpu.push(await cpuPerRequest(s.port, post, "303", between));
    }
  }
  const results = {};
  for (const [side, s] of Object.entries(servers)) {
    results[side] = {
      processCpuMsPerRequest: Math.round(median(s.cpu) * 100) / 100,
      processCpuPerRound: s.cpu.map((v) => Math.round(v * 100) / 100),
    };
    // Profiled under load, as the throughput figures are measured: a sequential profile also samples
    // the isolate waking up for every request, which inflates both sides by different amounts.
    let load = null;
    await settle();
    await between();
    Object.assign(
      results[side],
      await profileRequests({
        inspectorPort: s.inspectorPort,
        bundleFile: s.bundleFile,
        work: async () => {
          load = await loadPost(s.url, s.makeBody, { duration: PROFILE_SECONDS, connections: CONNECTIONS, headers: { origin: s.origin } });
          const other = Object.keys(load.statusCodes).filter((code) => code !== "303");
          if (other.length > 0 || load.errors > 0) throw new Error(`${side} answered ${JSON.stringify(load.statusCodes)} while profiled`);
          return load.requests;
        },
      }),
    );
    results[side].profiledRps = load.rps;
  }
  for (let i = 0; i < Object.keys(servers).length; i++) await stops.pop()();
  return results;
}

/**
 * Gatepost at `ref` (git archive of that commit) in bench/.baseline/two-trips, built with this
 * checkout's node_modules (the packages did not change). Throws with the build output on failure.
 */
function buildAtRef(ref) {
  const dir = path.join(BASELINE_DIR, "two-trips");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = spawnSync("git", ["archive", "--format=tar", ref], { cwd: ROOT, maxBuffer: 1 << 30 });
  if (archive.status !== 0) throw new Error(`git archive ${ref} failed: ${archive.stderr}`);
  const untar = spawnSync("tar", ["-x", "-C", dir], { input: archive.stdout });
  if (untar.status !== 0) throw new Error(`unpacking ${ref} failed: ${untar.stderr}`);
  symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
  const build = spawnSync(process.execPath, ["node_modules/@remix-run/dev/dist/cli.js", "vite:build"], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  if (build.status !== 0) throw new Error(`building ${ref} failed:\n${build.stdout}\n${build.stderr}`);
  return dir;
}

/**
 * Accept latency as a visitor far from the database feels it: every D1 round trip waits LATENCY_MS
 * first (the bench's own runtime wraps the binding), and Gatepost at TWO_TRIPS_REF (two trips before
 * the answer) and this checkout (one) take the same posts, no destination, in alternating rounds.
 */
async function measureLatency(settings, between) {
  const twoTripsDir = buildAtRef(TWO_TRIPS_REF);
  const bindings = { ...settings.oursNoDestination, BENCH_D1_LATENCY_MS: String(LATENCY_MS) };
  const servers = {};
  for (const [side, cwd] of [
    ["twoTrips", twoTripsDir],
    ["oneTrip", ROOT],
  ]) {
    const server = await startFreshMiniflare({ cwd, bindings, name: `latency-${side}` });
    const url = `${server.url}/f/contact`;
    const makeBody = await gatepostBodies(url, "contact", { signingSecret: bindings.FORM_SIGNING_SECRET });
    const headers = { "content-type": "application/x-www-form-urlencoded", origin: server.url };
    await warmUp(url, () => ({ method: "POST", body: makeBody(), headers }), 10);
    servers[side] = { url, makeBody, origin: server.url, rounds: [] };
  }
  const duration = Math.max(2, Math.round(DURATION / ROUNDS));
  for (let round = 0; round < ROUNDS; round++) {
    const order = Object.entries(servers);
    for (const [side, s] of round % 2 === 0 ? order : order.reverse()) {
      await settle();
      await between();
      const load = await loadPost(s.url, s.makeBody, { duration, connections: CONNECTIONS, headers: { origin: s.origin } });
      if (Object.keys(load.statusCodes).some((c) => c !== "303") || load.errors > 0 || load.requests === 0) {
        throw new Error(`latency ${side}: expected only 303, got ${JSON.stringify(load.statusCodes)} and ${load.errors} errors`);
      }
      s.rounds.push(load);
    }
  }
  for (let i = 0; i < 2; i++) await stops.pop()();
  rmSync(twoTripsDir, { recursive: true, force: true });
  const sides = Object.fromEntries(Object.entries(servers).map(([side, s]) => [side, combineRounds(s.rounds)]));
  for (const [side, r] of Object.entries(sides))
    log(`latency ${LATENCY_MS} ms per trip, ${side}: p50 ${r.p50} p99 ${r.p99} (${r.rps} req/s)`);
  return { d1LatencyMs: LATENCY_MS, twoTripsRef: TWO_TRIPS_REF, rounds: ROUNDS, secondsPerRound: duration, ...sides };
}

async function main() {
  const startedAt = new Date();
  const ticksAtStart = cpuTicks();
  if (!process.env.BENCH_SKIP_BUILD) {
    log("building Gatepost");
    const build = spawnSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" });
    if (build.status !== 0) throw new Error("npm run build failed");
  }
  log("building the baseline");
  buildBaseline();
  const baselineJs = measureRouteJs(BASELINE_CLIENT, "routes/_index");
  const pagesJs = measureAllPages(path.join(ROOT, "build/client"));

  const webhookSecret = `whsec_${randomBytes(32).toString("base64")}`;
  const providers = await startProviders({ sinkSecret: webhookSecret });
  stops.push(providers.stop);
  const settings = {
    ours: {
      TURNSTILE_SITE_KEY: "1x00000000000000000000AA",
      TURNSTILE_SECRET_KEY: SECRET,
      TURNSTILE_VERIFY_URL: providers.verifyUrl,
      TURNSTILE_SCRIPT_URL: providers.scriptUrl,
      FORM_SIGNING_SECRET: randomBytes(32).toString("hex"),
      // Settings, not code: the load test's posts are all from one IP and arrive at once.
      FORM_MIN_FILL_SECONDS: "0",
      FORM_RATE_LIMIT_PER_MINUTE: "1000000000",
      FORM_RATE_LIMIT_PER_DAY: "1000000000",
      ALLOW_LOOPBACK_WEBHOOKS: "true",
      CONTACT_WEBHOOK_URL: providers.sinkUrl,
      CONTACT_WEBHOOK_SECRET: webhookSecret,
    },
    base: {
      TURNSTILE_SECRET_KEY: SECRET,
      TURNSTILE_VERIFY_URL: providers.verifyUrl,
      BENCH_WEBHOOK_URL: providers.sinkUrl,
      BENCH_WEBHOOK_SECRET: webhookSecret,
    },
  };
  settings.oursNoDestination = { ...settings.ours, CONTACT_WEBHOOK_URL: "", CONTACT_WEBHOOK_SECRET: "" };

  // Lighthouse first, while the machine is quiet: its simulated mobile CPU multiplies any other work
  // (servers of the load tests winding down, the outbox run) into blocking time and late paints.
  let lighthouse = null;
  if (!process.env.BENCH_SKIP_LIGHTHOUSE) {
    const runs = Number(process.env.LH_RUNS || 3);
    log(`Lighthouse, ${runs} runs per page`);
    const state = freshState("lighthouse-base");
    applyMigrations({ cwd: BASELINE_DIR, persistTo: state });
    const base = await startPagesDev({ cwd: BASELINE_DIR, port: await freePort(), bindings: settings.base, persistTo: state });
    stops.push(base.stop);
    // The baseline's page runs in the same rounds as Gatepost's, so a disturbed round shows on both.
    lighthouse = await auditGatepost({ runs, control: { name: "baseline /", url: `${base.url}/` } });
    await stops.pop()();
  }

  const runtimes = [];
  for (const runtime of ["pages dev", "miniflare"]) {
    log(`measuring under ${runtime}`);
    runtimes.push(await measureRuntime(runtime, settings, providers.reset));
  }
  log("CPU per page view in workerd");
  const pageCpu = await measurePageCpu(settings, providers.reset);
  log("profiling the submit path in workerd (inspector)");
  const profile = await profileSubmitPath(settings, providers.reset);
  let latency = null;
  if (!process.env.BENCH_SKIP_LATENCY) {
    log(`accept latency with ${LATENCY_MS} ms per D1 round trip: ${TWO_TRIPS_REF} (two trips) against this checkout (one)`);
    latency = await measureLatency(settings, providers.reset);
  }
  await providers.reset();

  let outbox = null;
  if (existsSync(new URL("./outbox-drain.mjs", import.meta.url))) {
    log("outbox drain (bench/outbox-drain.mjs)");
    const { runOutboxDrainBench } = await import("./outbox-drain.mjs");
    // The outbox helper's module: a failure there is reported, not allowed to sink the other figures.
    try {
      outbox = await runOutboxDrainBench({ count: Number(process.env.BENCH_OUTBOX_COUNT || 200), timeoutMs: 300_000, log });
    } catch (error) {
      log("outbox drain benchmark failed:", error.message);
      outbox = { failed: String(error.message).slice(0, 500) };
    }
  }

  const results = {
    date: startedAt.toISOString(),
    finished: new Date().toISOString(),
    cores: os.cpus().length,
    nproc: spawnSync("nproc", { encoding: "utf8" }).stdout.trim(),
    loadAverage: os.loadavg().map((n) => Math.round(n * 100) / 100),
    // Share of this VM's CPU time the hypervisor gave to other guests during the run.
    stealPercent: stealSince(ticksAtStart),
    node: process.version,
    command: [
      ...[
        "BENCH_DURATION",
        "BENCH_ROUNDS",
        "BENCH_CONNECTIONS",
        "LH_RUNS",
        "BENCH_OUTBOX_COUNT",
        "BENCH_SKIP_BUILD",
        "BENCH_SKIP_LIGHTHOUSE",
        "BENCH_D1_LATENCY_MS",
        "BENCH_TWO_TRIPS_REF",
        "BENCH_SKIP_LATENCY",
      ]
        .filter((name) => process.env[name])
        .map((name) => `${name}=${process.env[name]}`),
      "npm run bench",
    ].join(" "),
    durationS: DURATION,
    connections: CONNECTIONS,
    js: { baseline: baselineJs, pages: pagesJs },
    runtimes,
    pageCpu,
    profile,
    latency,
    outbox,
    lighthouse,
  };
  results.targets = judgeTargets(results);
  results.commit = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).stdout.trim();
  mkdirSync(path.join(ROOT, "bench/results"), { recursive: true });
  writeFileSync(path.join(ROOT, "bench/results/latest.json"), JSON.stringify(results, null, 2));
  // The run history is data, one line per run (docs/performance.md keeps only the latest results).
  appendFileSync(path.join(ROOT, "bench/results/history.jsonl"), `${JSON.stringify(summarizeRun(results))}\n`);
  writeReport(results);
  log("done: bench/results/latest.json and docs/performance.md");
}

try {
  await main();
} finally {
  await stopAll();
  clearTimeout(watchdog);
}

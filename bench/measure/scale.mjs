// Gatepost at a million submissions (ADR 060), in Miniflare: a seeded database beside an empty one, accepted posts
// on both at once (req/s, CPU per post); each console view's p50/p95 over BENCH_SCALE_VIEWS signed-in GETs; and the
// export of every row as a job (ADR 109): its time, size, and the isolate's and workerd's memory early and overall.
// Rows read per view are not visible from outside: tests/workers/scale.test.ts holds them.
import { randomBytes } from "node:crypto";
import { hashPassword } from "../../scripts/hash-password.mjs";
import { applyLocalMigrations } from "../../scripts/worker-dev.mjs";
import { seedInto } from "../../scripts/seed-into.mjs";
import { loadPost, loadTrial, warmUp } from "../lib/load.mjs";
import { connect } from "../lib/profile.mjs";
import { alternateLoads } from "../lib/rounds.mjs";
import { freshState, startServer } from "../lib/servers.mjs";
import { pairedRatio, round } from "../lib/stats.mjs";
import { gatepostBodies } from "../lib/submit.mjs";
import { loadTable } from "../lib/tables.mjs";
import { atLeast, atMost } from "../lib/targets.mjs";

export const name = "scale";
export const title = "A million submissions";
export const order = 70;
export const perRuntime = false;

const SUBMISSIONS = Number(process.env.BENCH_SCALE_SUBMISSIONS || 1_000_000);
// 100, not 20: the 95th percentile of 20 is the slowest, one hiccup of the host in twenty.
const VIEW_REQUESTS = Number(process.env.BENCH_SCALE_VIEWS || 100);
const RUNTIME = "miniflare";
const VARIANT = "noDestination";

/** The console views measured, by label; dates are filled in from the seed's last day. */
function views(lastDay) {
  return {
    dashboard: "/admin",
    list: "/admin/submissions",
    "list, one form": "/admin/submissions?form=contact",
    "list, dead": "/admin/submissions?status=dead",
    "list, one form's dead": "/admin/submissions?form=apply&status=dead",
    "list, one day": `/admin/submissions?from=${lastDay}&to=${lastDay}`,
    "list, form + state + dates": `/admin/submissions?form=contact&status=delivered&from=${lastDay}&to=${lastDay}`,
    "search, common word": "/admin/submissions?q=please",
    "search, an address": "/admin/submissions?q=zoe.angstrom",
    "search + dead": "/admin/submissions?q=invoice&status=dead",
    "audit log": "/admin/audit",
    forms: "/admin/forms",
  };
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function signIn(server, password) {
  const response = await fetch(`${server.url}/admin/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url, "sec-fetch-site": "same-origin" },
    body: new URLSearchParams({ password, next: "/admin" }).toString(),
  });
  const cookie = response.headers.get("set-cookie")?.split(";")[0];
  if (response.status !== 303 || !cookie) throw new Error(`sign-in answered ${response.status}`);
  return cookie;
}

async function timeView(server, cookie, path) {
  const get = () => fetch(`${server.url}${path}`, { headers: { cookie, "sec-fetch-site": "same-origin" } });
  const first = await get();
  if (first.status !== 200) throw new Error(`GET ${path} answered ${first.status}`);
  await first.arrayBuffer();
  const times = [];
  const before = server.cpuMs();
  for (let i = 0; i < VIEW_REQUESTS; i++) {
    const start = performance.now();
    const response = await get();
    await response.arrayBuffer();
    times.push(performance.now() - start);
  }
  const cpuMs = (server.cpuMs() - before) / VIEW_REQUESTS;
  times.sort((a, b) => a - b);
  return { p50: round(percentile(times, 50), 1), p95: round(percentile(times, 95), 1), cpuMs: round(cpuMs, 1) };
}

const EXPORT_TIMEOUT_MS = 15 * 60_000;
const READ_EVERY_MS = 250;
/** The isolate's heap after a full collection, every this many polls (a collection takes a few ms). */
const RETAINED_EVERY = 20;

/** The app isolate's V8 heap through workerd's inspector: `used()` now, `retained()` after a full collection. */
async function isolateHeap(server) {
  const cdp = await connect(server.inspectorPort, (t) => t.id.startsWith("core:user:"));
  await cdp.send("HeapProfiler.enable");
  const used = async () => (await cdp.send("Runtime.getHeapUsage")).usedSize;
  return {
    used,
    async retained() {
      let done = false;
      const collected = cdp.send("HeapProfiler.collectGarbage").then(() => (done = true));
      for (let i = 0; !done; i++) {
        if (i === 50) throw new Error("workerd's inspector never ran the collection");
        await (await fetch(`${server.url}/healthz`)).arrayBuffer();
        await Promise.race([collected, new Promise((resolve) => setTimeout(resolve, 100))]);
      }
      return used();
    },
    close: cdp.close,
  };
}

/** Tracks the largest of each figure over the first tenth of the rows and over the whole job. */
function peaks() {
  const early = {};
  const all = {};
  return {
    note(name, value, isEarly) {
      all[name] = Math.max(all[name] ?? 0, value);
      if (isEarly) early[name] = Math.max(early[name] ?? 0, value);
    },
    early,
    all,
  };
}

/** Exports every row as a script would (polling the job's Location), noting memory after every poll, so the first tenth's peak against the whole job's shows whether memory grows with the rows. */
async function timeExport(server, cookie, expectedRows) {
  const headers = { cookie, origin: server.url, "sec-fetch-site": "same-origin", accept: "application/json" };
  const heap = await isolateHeap(server);
  const mib = (bytes) => round(bytes / 1024 / 1024, 1);
  const seen = peaks();
  let early = true;
  const note = async (polls) => {
    seen.note("processKiB", server.memoryKiB().hwm, early);
    seen.note("usedBytes", await heap.used(), early);
    if (polls % RETAINED_EVERY === 0) seen.note("retainedBytes", await heap.retained(), early);
  };
  try {
    seen.note("retainedBytes", await heap.retained(), true);
    server.resetPeak();
    const start = performance.now();
    let response = await fetch(`${server.url}/admin/export?format=csv`, { headers, redirect: "manual" });
    let polls = 1;
    while (response.status === 202) {
      const progress = await response.json();
      await note(polls);
      early = progress.rows < expectedRows / 10;
      if (performance.now() - start > EXPORT_TIMEOUT_MS)
        throw new Error(`export unfinished after ${polls} polls: ${JSON.stringify(progress)}`);
      await new Promise((resolve) => setTimeout(resolve, READ_EVERY_MS));
      response = await fetch(new URL(response.headers.get("location"), server.url), { headers, redirect: "manual" });
      polls++;
    }
    if (response.status !== 200) throw new Error(`the export answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
    const readySeconds = (performance.now() - start) / 1000;
    let bytes = 0;
    let lines = 0;
    for await (const chunk of response.body) {
      bytes += chunk.byteLength;
      for (const byte of chunk) if (byte === 10) lines++;
    }
    await note(RETAINED_EVERY);
    return {
      status: response.status,
      polls,
      rows: lines - 1,
      readySeconds: round(readySeconds, 1),
      seconds: round((performance.now() - start) / 1000, 1),
      megabytes: round(bytes / 1e6, 1),
      retainedEvery: RETAINED_EVERY,
      memoryMiB: {
        early: {
          retained: mib(seen.early.retainedBytes),
          used: mib(seen.early.usedBytes),
          process: round(seen.early.processKiB / 1024, 0),
        },
        all: { retained: mib(seen.all.retainedBytes), used: mib(seen.all.usedBytes), process: round(seen.all.processKiB / 1024, 0) },
      },
    };
  } finally {
    heap.close();
  }
}

export async function run({ apps, settings, opts, between, log }) {
  const app = apps.gatepost;
  const password = randomBytes(18).toString("base64url");
  const bindings = { ...settings[VARIANT], ADMIN_PASSWORD_HASH: await hashPassword(password) };
  const persistTo = freshState(`scale-seeded-${RUNTIME}`);
  applyLocalMigrations({ persistTo, config: app.config });
  log(`seeding ${SUBMISSIONS} submissions`);
  const seedSeconds = round(seedInto(persistTo, SUBMISSIONS), 1);
  const full = await startServer(RUNTIME, app, { bindings, name: "scale-seeded", reuseState: persistTo });
  const empty = await startServer(RUNTIME, app, { bindings, name: "scale-empty" });
  let inspected = null;
  let fullUp = true;
  try {
    const trials = {};
    for (const [subject, server] of Object.entries({ empty, full })) {
      const url = `${server.url}/f/contact`;
      const makeBody = await gatepostBodies(url, "contact", { signingSecret: bindings.FORM_SIGNING_SECRET });
      const headers = { origin: server.url };
      await warmUp(url, () => ({
        method: "POST",
        body: makeBody(),
        headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
      }));
      trials[subject] = loadTrial(server, () => loadPost(url, makeBody, { ...opts.paired.load, headers }));
    }
    const loads = await alternateLoads(trials, {
      together: true,
      rounds: opts.paired.rounds,
      between,
      expect: { empty: "303", full: "303" },
      log,
      label: "scale accept",
    });
    const cookie = await signIn(full, password);
    const lastDay = new Date().toISOString().slice(0, 10);
    const timed = {};
    for (const [label, path] of Object.entries(views(lastDay))) timed[label] = { path, ...(await timeView(full, cookie, path)) };
    // The export on a server of its own with its inspector on, which never weighs on the figures above.
    await full.stop();
    fullUp = false;
    inspected = await startServer(RUNTIME, app, { bindings, name: "scale-inspected", reuseState: persistTo, inspect: true });
    const exported = await timeExport(inspected, await signIn(inspected, password), SUBMISSIONS);
    return {
      submissions: SUBMISSIONS,
      seedSeconds,
      rounds: opts.paired.rounds,
      secondsPerRound: opts.paired.load.duration,
      loads,
      ratios: { rps: pairedRatio(loads.full, loads.empty).median, cpu: pairedRatio(loads.full, loads.empty, "cpuPerRound").median },
      views: timed,
      exported,
    };
  } finally {
    await Promise.allSettled([fullUp && full.stop(), empty.stop(), inspected?.stop()]);
  }
}

export function targets(data) {
  const ok = !data.failed;
  const slowest = ok ? Math.max(...Object.values(data.views).map((v) => v.p95)) : null;
  return [
    atMost(`Every console view's p95 at ${SUBMISSIONS} submissions (ms, loopback)`, 150, { [RUNTIME]: slowest }, " ms"),
    atLeast(`Accepts at ${SUBMISSIONS} ÷ on an empty database, req/s`, 0.95, { [RUNTIME]: ok ? data.ratios.rps : null }),
    atLeast(`Accepts at ${SUBMISSIONS} ÷ on an empty database, CPU per post (empty's ÷ full's)`, 0.95, {
      [RUNTIME]: ok ? data.ratios.cpu : null,
    }),
    // Complete: every row in the file. Flat: the whole job's heap within a quarter of the first tenth's.
    atLeast(`Export of every row (${SUBMISSIONS} seeded) completes: rows in the file ÷ rows seeded`, 1, {
      [RUNTIME]: ok ? round(data.exported.rows / SUBMISSIONS, 3) : null,
    }),
    atMost(
      "Export: the app isolate's peak heap after a collection, over the whole job ÷ before it and over the first tenth of the rows",
      1.25,
      {
        [RUNTIME]:
          ok && data.exported.memoryMiB?.early.retained
            ? round(data.exported.memoryMiB.all.retained / data.exported.memoryMiB.early.retained, 2)
            : null,
      },
    ),
    atMost(
      "Export: the app isolate's peak heap between collections, MiB (a Worker's isolate may use 128 MB, 122 MiB)",
      122,
      {
        [RUNTIME]: ok ? (data.exported.memoryMiB?.all.used ?? null) : null,
      },
      " MiB",
    ),
  ];
}

export function render(data) {
  if (data.failed) return [`Not measured: ${data.failed}`, ""];
  return [
    `**${RUNTIME}**, ${data.submissions} submissions seeded by \`npm run seed\` in ${data.seedSeconds} s. Console views, ${VIEW_REQUESTS} sequential requests each (ms, client-side on loopback; workerd CPU ms per view):`,
    "",
    "| View | Path | p50 | p95 | CPU |",
    "|---|---|---|---|---|",
    ...Object.entries(data.views).map(([label, v]) => `| ${label} | \`${v.path}\` | ${v.p50} | ${v.p95} | ${v.cpuMs} |`),
    "",
    `Export of every form (\`GET /admin/export?format=csv\`, then its 202 \`Location\` read every ${READ_EVERY_MS} ms until it served the file, while the`,
    `export queue built it in steps of \`CLOUDFLARE_PLAN\`'s default, Free): ${data.exported.rows} rows, ${data.exported.megabytes} MB, ready after ${data.exported.polls} requests`,
    `in ${data.exported.readySeconds} s and read through by ${data.exported.seconds} s. Peak memory before the job and over its first tenth of the rows, then over the whole job:`,
    `the app isolate's V8 heap after a full collection (every ${data.exported.retainedEvery} polls, through workerd's inspector) ${data.exported.memoryMiB.early.retained} and ${data.exported.memoryMiB.all.retained} MiB,`,
    `its heap between collections (after every poll) ${data.exported.memoryMiB.early.used} and ${data.exported.memoryMiB.all.used} MiB; the whole workerd process (local D1's SQLite and`,
    `local R2 included, which the platform keeps outside the Worker) ${data.exported.memoryMiB.early.process} and ${data.exported.memoryMiB.all.process} MiB.`,
    "",
    `Accepted posts, no destination (${data.rounds} rounds of ${data.secondsPerRound} s, both servers under load at once in each round, on one core):`,
    "",
    ...loadTable([
      { label: "Gatepost POST /f/contact, empty database", load: data.loads.empty, against: null },
      { label: `Gatepost POST /f/contact, ${data.submissions} submissions, vs empty`, load: data.loads.full, against: data.loads.empty },
    ]),
    "",
  ];
}

export function summarize(data) {
  if (data.failed) return { failed: true };
  return {
    ...data.ratios,
    views: Object.fromEntries(Object.entries(data.views).map(([label, v]) => [label, v.p95])),
    exported: data.exported,
  };
}

// An export a person can wait for (issue 51, docs/decisions/109), under `wrangler dev` as `npm start`
// runs it: `npm run seed` fills a database of the bench's own with BENCH_EXPORT_ROWS (1,000,000)
// submissions; one signed-in request starts the export of every form (GET /admin/export?format=csv),
// and then its address is only read, every POLL_MS as the console's page does, while the export queue
// carries the job on by itself. Measured: the wall time until the file is ready and read through, the
// rows in it, and the queue's invocations (the consumer logs one line each) with the app workerd's CPU
// over the whole job divided among them: an upper bound of a step's CPU, since local D1, R2 and the
// queue's broker run in that process too (on the platform they are services of their own).
import { randomBytes } from "node:crypto";
import { hashPassword } from "../../scripts/hash-password.mjs";
import { applyLocalMigrations } from "../../scripts/worker-dev.mjs";
import { seedInto } from "../../scripts/seed-into.mjs";
import { freshState, startServer } from "../lib/servers.mjs";
import { round } from "../lib/stats.mjs";
import { atMost, atLeast } from "../lib/targets.mjs";
import { FREE_CPU_MS } from "./cpu-free.mjs";

export const name = "export";
export const title = "An export a person can wait for";
export const order = 75;
export const perRuntime = false;

const ROWS = Number(process.env.BENCH_EXPORT_ROWS || 1_000_000);
const RUNTIME = "wrangler dev";
/** The page's pace: a read every 2 s, which never moves the job. */
const POLL_MS = 2000;
/** The line: a million rows within 10 minutes. */
const WITHIN_S = 600;
const TIMEOUT_MS = 20 * 60_000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

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

/** The consumer's log lines so far: one per queue invocation (functions/queue.ts). */
const steps = (server) => (server.output().match(/"exportQueue":/g) ?? []).length;

export async function run({ apps, settings, log }) {
  const app = apps.gatepost;
  const password = randomBytes(18).toString("base64url");
  const bindings = { ...settings.noDestination, ADMIN_PASSWORD_HASH: await hashPassword(password) };
  const persistTo = freshState(`export-seeded-${RUNTIME}`);
  applyLocalMigrations({ persistTo, config: app.config });
  log(`export: seeding ${ROWS} submissions`);
  const seedSeconds = round(seedInto(persistTo, ROWS), 1);
  const server = await startServer(RUNTIME, app, { bindings, name: "export-seeded", reuseState: persistTo });
  try {
    const cookie = await signIn(server, password);
    const headers = { cookie, origin: server.url, "sec-fetch-site": "same-origin", accept: "application/json" };
    const stepsBefore = steps(server);
    const cpuBefore = server.cpuMs();
    const start = performance.now();
    let response = await fetch(`${server.url}/admin/export?format=csv`, { headers, redirect: "manual" });
    if (response.status !== 202) throw new Error(`the export answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
    const location = new URL(response.headers.get("location"), server.url);
    let polls = 0;
    let last = await response.json();
    const trace = [];
    while (response.status === 202) {
      if (performance.now() - start > TIMEOUT_MS)
        throw new Error(`export unfinished after ${TIMEOUT_MS / 60_000} min: ${JSON.stringify(last)}`);
      await sleep(POLL_MS);
      response = await fetch(location, { headers, redirect: "manual" });
      polls++;
      if (response.status === 202) {
        last = await response.json();
        if (polls % 15 === 0) {
          trace.push({ s: round((performance.now() - start) / 1000, 0), phase: last.phase, rows: last.rows, left: last.secondsLeft });
          log(`export: ${JSON.stringify(trace.at(-1))}`);
        }
      }
    }
    if (response.status !== 200) throw new Error(`the export answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
    const readySeconds = (performance.now() - start) / 1000;
    let bytes = 0;
    let lines = 0;
    for await (const chunk of response.body) {
      bytes += chunk.byteLength;
      for (const byte of chunk) if (byte === 10) lines++;
    }
    const seconds = (performance.now() - start) / 1000;
    // The queue's invocations, and the CPU over the job (the polls' and the start's included).
    const invocations = steps(server) - stepsBefore;
    const cpuMs = server.cpuMs() - cpuBefore;
    return {
      submissions: ROWS,
      seedSeconds,
      rows: lines - 1,
      megabytes: round(bytes / 1e6, 1),
      readySeconds: round(readySeconds, 1),
      seconds: round(seconds, 1),
      polls,
      invocations,
      cpuPerInvocationMs: invocations > 0 ? round(cpuMs / invocations, 2) : null,
      trace,
    };
  } finally {
    await server.stop();
  }
}

export function targets(d) {
  const ok = !d.failed;
  return [
    atMost(
      `Export of every row (${ROWS} seeded) under wrangler dev, the page only reading it: ready and read through, s`,
      WITHIN_S,
      { [RUNTIME]: ok ? d.seconds : null },
      " s",
    ),
    atLeast(`Export under wrangler dev completes: rows in the file ÷ rows seeded`, 1, { [RUNTIME]: ok ? round(d.rows / ROWS, 3) : null }),
    atMost(
      "CPU per export step on Free: the app workerd's CPU over the whole job ÷ the export queue's invocations, ms",
      FREE_CPU_MS,
      { [RUNTIME]: ok ? d.cpuPerInvocationMs : null },
      " ms",
    ),
  ];
}

export function render(d) {
  if (d.failed) return [`Not measured: ${d.failed}`, ""];
  return [
    `**${RUNTIME}**, ${d.submissions} submissions seeded by \`npm run seed\` in ${d.seedSeconds} s. One request started the export of every form`,
    `(\`GET /admin/export?format=csv\`, \`CLOUDFLARE_PLAN\`'s default, Free); its address was then read every ${POLL_MS / 1000} s, as the console's page does, and`,
    `the export queue carried the job on: ${d.rows} rows, ${d.megabytes} MB, ready after ${d.readySeconds} s (${d.polls} reads) and read through by`,
    `${d.seconds} s, in ${d.invocations} queue invocations; the app workerd's CPU over the job, ÷ those invocations: ${d.cpuPerInvocationMs} ms`,
    `(local D1, R2 and the queue included: an upper bound).`,
    "",
  ];
}

export function summarize(d) {
  if (d.failed) return { failed: true };
  return { seconds: d.seconds, rows: d.rows, invocations: d.invocations, cpuPerInvocationMs: d.cpuPerInvocationMs };
}

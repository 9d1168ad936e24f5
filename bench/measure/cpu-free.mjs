// CPU per request against Workers Free's 10 ms (ADR 070): each kind of request sent one at a time to one
// `wrangler dev` server, its workerd's CPU divided by the requests (an upper bound of what the platform counts).
// This machine's speed moves, so the kinds take turns in blocks with a yardstick (the bare app's page view) among them.
import { randomBytes } from "node:crypto";
import { hashPassword } from "../../scripts/hash-password.mjs";
import { queryD1 } from "../lib/outbox.mjs";
import { startServer } from "../lib/servers.mjs";
import { median, round } from "../lib/stats.mjs";
import { atMost } from "../lib/targets.mjs";
import { benchPdf, gatepostBodies, gatepostFields, multipartBodies } from "../lib/submit.mjs";

export const name = "cpu";
export const title = "CPU per request against Workers Free's 10 ms";
export const order = 80;
export const FREE_CPU_MS = 10;
/** Requests per kind: enough for a stable mean, few for the 1 MiB posts. */
const COUNT = {
  yardstick: 200,
  page: 200,
  accept: 100,
  upload: 20,
  list: 100,
  submission: 100,
  export: 50,
  exportPage: 100,
  cron: 30,
  cronJob: 30,
};
/** Blocks per kind, in turn with the other kinds'. */
const BLOCKS = 5;
/** The cron's jobs on a cadence (app/lib/maintenance, docs/decisions/095), each due on its own minute of ten. */
const CADENCE_JOBS = ["prune-rate-limits", "apply-retention", "reseal-settings", "sweep-orphaned-files"];

async function signIn(server, password) {
  const res = await fetch(`${server.url}/admin/login`, {
    method: "POST",
    redirect: "manual",
    headers: { origin: server.url, "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "same-origin" },
    body: new URLSearchParams({ password, next: "/admin" }).toString(),
  });
  const cookie = res.headers.get("set-cookie")?.split(";")[0];
  if (res.status !== 303 || !cookie) throw new Error(`signing in answered ${res.status}`);
  return cookie;
}

/** Sends `n` of one kind: the server's CPU over them (with `before`, each send's own window only). */
async function block({ server, send, ok, before = null }, n) {
  let cpuMs = 0;
  let start = server.cpuMs();
  const bad = [];
  for (let i = 0; i < n; i++) {
    if (before) {
      await before();
      start = server.cpuMs();
    }
    const status = await send();
    if (before) cpuMs += server.cpuMs() - start;
    if (!ok(status)) bad.push(status);
  }
  if (!before) cpuMs = server.cpuMs() - start;
  return { cpuMs, bad };
}

/** One warm-up per kind, then BLOCKS rounds in turn; per kind the median block's CPU per request. */
async function measureInTurns(kinds) {
  const blocks = Object.fromEntries(Object.keys(kinds).map((kind) => [kind, []]));
  const bad = Object.fromEntries(Object.keys(kinds).map((kind) => [kind, []]));
  for (const kind of Object.values(kinds)) {
    await kind.before?.();
    await kind.send();
  }
  for (let b = 0; b < BLOCKS; b++) {
    for (const [name, kind] of Object.entries(kinds)) {
      const n = Math.ceil(kind.n / BLOCKS);
      const done = await block(kind, n);
      blocks[name].push(round(done.cpuMs / n, 2));
      bad[name].push(...done.bad);
    }
  }
  return Object.fromEntries(
    Object.entries(kinds).map(([name, kind]) => [
      name,
      { n: Math.ceil(kind.n / BLOCKS) * BLOCKS, cpuMs: median(blocks[name]), perBlock: blocks[name], unexpected: bad[name].slice(0, 3) },
    ]),
  );
}

export async function run({ apps, settings, log }) {
  const password = randomBytes(18).toString("base64url");
  const bindings = { ...settings.gatepost, ADMIN_PASSWORD_HASH: await hashPassword(password) };
  const server = await startServer("wrangler dev", apps.gatepost, { bindings, name: "cpu" });
  const bare = await startServer("wrangler dev", apps.baseline, { bindings: settings.baseline, name: "cpu-yardstick" });
  try {
    const url = server.url;
    const get =
      (base, path, headers = {}) =>
      async () => {
        const res = await fetch(`${base}${path}`, { headers });
        await res.arrayBuffer();
        return res.status;
      };
    const contactBody = await gatepostBodies(`${url}/f/contact`, "contact", { signingSecret: bindings.FORM_SIGNING_SECRET });
    const post = (path, body, type) => async () => {
      const res = await fetch(`${url}${path}`, {
        method: "POST",
        redirect: "manual",
        headers: { origin: url, "content-type": type },
        body: body(),
      });
      await res.arrayBuffer();
      return res.status;
    };
    const applyFields = await gatepostFields(`${url}/f/apply`, "apply", {
      signingSecret: bindings.FORM_SIGNING_SECRET,
      fields: { name: "Bench Mark", email: "bench@example.org" },
    });
    const upload = multipartBodies(applyFields, {
      field: "cv",
      name: "bench-cv.pdf",
      type: "application/pdf",
      bytes: benchPdf(1024 * 1024),
    });
    const is = (code) => (status) => status === code;
    const yardstick = { server: bare, n: COUNT.yardstick / 2, send: get(bare.url, "/"), ok: is(200) };
    log("cpu: accepted posts and posts with a 1 MiB file, in turns with the yardstick");
    const writes = await measureInTurns({
      yardstick,
      accept: { server, n: COUNT.accept, send: post("/f/contact", contactBody, "application/x-www-form-urlencoded"), ok: is(303) },
      upload: { server, n: COUNT.upload, send: post("/f/apply", upload.makeBody, upload.contentType), ok: is(303) },
    });
    const cookie = await signIn(server, password);
    const admin = { cookie, "sec-fetch-site": "same-origin" };
    const listed = await (await fetch(`${url}/admin/submissions?form=contact`, { headers: admin })).text();
    const id = /\/admin\/submissions\/([0-9a-f-]{36})/.exec(listed)?.[1];
    if (!id) throw new Error("the console list showed no submission");
    const tick = async () => (await server.tick(), 200);
    // A job's own minute: its booked next run removed before each run, so the run does that job's work.
    const jobs = Object.fromEntries(
      CADENCE_JOBS.map((job) => [
        `cron:${job}`,
        {
          server,
          n: COUNT.cronJob,
          send: tick,
          ok: () => true,
          before: async () => void queryD1(server, `DELETE FROM maintenance_cursors WHERE name = 'next-run:${job}'`),
        },
      ]),
    );
    // An export's start only hands the job to the export queue (ADR 109); the last one's file is awaited outside the count.
    const exportHeaders = { ...admin, accept: "application/json" };
    let lastExport = null;
    const startExport = async () => {
      const res = await fetch(`${url}/admin/export?form=contact&format=csv`, { headers: exportHeaders, redirect: "manual" });
      lastExport = res.headers.get("location");
      await res.arrayBuffer();
      return res.status;
    };
    const exportDone = async () => {
      for (let i = 0; lastExport && i < 600; i++) {
        const res = await fetch(`${url}${lastExport}`, { headers: exportHeaders });
        await res.arrayBuffer();
        if (res.status !== 202) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      if (lastExport) throw new Error(`the export at ${lastExport} never finished`);
    };
    await startExport();
    await exportDone();
    const exportPage = lastExport.replace("/admin/export/", "/admin/exports/");
    log("cpu: page view, console list, submission page, export, cron runs, in turns with the yardstick");
    const reads = await measureInTurns({
      yardstick,
      page: { server, n: COUNT.page, send: get(url, "/f/contact"), ok: is(200) },
      list: { server, n: COUNT.list, send: get(url, "/admin/submissions?form=contact", admin), ok: is(200) },
      submission: { server, n: COUNT.submission, send: get(url, `/admin/submissions/${id}`, admin), ok: is(200) },
      export: { server, n: COUNT.export, send: startExport, ok: is(202), before: exportDone },
      exportPage: { server, n: COUNT.exportPage, send: get(url, exportPage, admin), ok: is(200) },
      cron: { server, n: COUNT.cron, send: tick, ok: () => true },
      ...jobs,
    });
    const perBlock = [...writes.yardstick.perBlock, ...reads.yardstick.perBlock];
    const rows = {
      page: reads.page,
      accept: writes.accept,
      upload: writes.upload,
      ...Object.fromEntries(Object.entries(reads).filter(([kind]) => !["yardstick", "page"].includes(kind))),
    };
    const yardstickRow = {
      n: writes.yardstick.n + reads.yardstick.n,
      cpuMs: median(perBlock),
      perBlock,
      unexpected: [...writes.yardstick.unexpected, ...reads.yardstick.unexpected],
    };
    return { rows, yardstick: yardstickRow, blocks: BLOCKS, submissionsStored: writes.accept.n + 1 };
  } finally {
    await bare.stop();
    await server.stop();
  }
}

const LABELS = {
  page: "Page view, GET /f/contact",
  accept: "Accepted post, POST /f/contact (webhook to the sink, first attempt included)",
  upload: "Post with a 1 MiB file, POST /f/apply (R2 put)",
  list: "Console list, GET /admin/submissions",
  submission: "Submission page, GET /admin/submissions/:id",
  export: "Export started, GET /admin/export (CSV of every contact submission; the export queue builds it)",
  exportPage: "Export's page, GET /admin/exports/:id (what a waiting person's page reads)",
  cron: "Cron run (the scheduled handler, nothing due)",
  ...Object.fromEntries(CADENCE_JOBS.map((job) => [`cron:${job}`, `Cron run on ${job}'s minute (once in ten)`])),
};

export function targets(d) {
  return Object.entries(d.rows).map(([kind, row]) =>
    atMost(
      `CPU per request on Free: ${LABELS[kind]}, ms`,
      FREE_CPU_MS,
      { "wrangler dev": row.unexpected.length > 0 ? null : row.cpuMs },
      " ms",
    ),
  );
}

const blocks = (row) => (row.perBlock ?? []).join(" / ");

/** The report's part: how it was measured and the yardstick; each row's figure is in the verdicts. */
export function render(d) {
  return [
    `One \`wrangler dev\` server, requests one at a time; workerd's CPU (its threads' run time) per request, after one warm-up,`,
    `in ${d.blocks ?? 1} blocks per kind taken in turns (the posts first); a figure is the median block (each block: bench/results/details.md).`,
    ...(d.yardstick
      ? [
          `Yardstick, the bare app's page view (GET /) on a server of its own, in turns with them: ${d.yardstick.cpuMs} ms (${blocks(d.yardstick)}).`,
        ]
      : []),
  ];
}

/** Every kind's blocks, for bench/results/details.md. */
export function renderDetail(d) {
  const fits = (row) =>
    row.unexpected.length > 0 ? `not measured (answers ${row.unexpected.join(", ")})` : row.cpuMs <= FREE_CPU_MS ? "fits" : "exceeds";
  return [
    "### CPU per request against Workers Free's 10 ms, block by block",
    "",
    `The export read ${d.submissionsStored} stored submissions.`,
    "",
    "| Request | Requests | workerd CPU per request (per block) | Free's 10 ms |",
    "|---|---|---|---|",
    ...Object.entries(d.rows).map(([kind, row]) => `| ${LABELS[kind]} | ${row.n} | ${row.cpuMs} ms (${blocks(row)}) | ${fits(row)} |`),
  ];
}

export function summarize(d) {
  return { ...Object.fromEntries(Object.entries(d.rows).map(([kind, row]) => [kind, row.cpuMs])), yardstick: d.yardstick?.cpuMs ?? null };
}

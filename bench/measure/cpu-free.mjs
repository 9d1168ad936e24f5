// CPU per request against Workers Free's 10 ms (docs/decisions/070): each kind of request the Worker
// answers, sent one at a time to one `wrangler dev` server, with the CPU its workerd used divided by the
// requests (user + system, /proc; a process-wide figure, so it includes workerd's own work around each
// request: an upper bound of what the platform would count). On this machine, not Cloudflare's.
import { randomBytes } from "node:crypto";
import { hashPassword } from "../../scripts/hash-password.mjs";
import { queryD1 } from "../lib/outbox.mjs";
import { startServer } from "../lib/servers.mjs";
import { atMost } from "../lib/targets.mjs";
import { benchPdf, gatepostBodies, gatepostFields, multipartBodies } from "../lib/submit.mjs";

export const name = "cpu";
export const title = "CPU per request against Workers Free's 10 ms";
export const order = 80;
export const FREE_CPU_MS = 10;
/** Requests per kind: enough for a stable mean, few for the 1 MiB posts. */
const COUNT = { page: 200, accept: 100, upload: 20, list: 100, submission: 100, export: 50, cron: 30, cronJob: 20 };
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

/**
 * Runs `send` n times in turn; the workerd CPU per request, in ms (and any answer that was not `ok`).
 * Without `before`, the CPU over the whole loop (after-response work included); with it, only each
 * send's own window, so `before`'s setup (another process's D1 write) stays out of the count.
 */
async function perRequest(server, n, send, ok, before = null) {
  await before?.();
  await send(); // the first one warms what each isolate keeps
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
  return { n, cpuMs: Math.round((cpuMs / n) * 100) / 100, unexpected: bad.slice(0, 3) };
}

export async function run({ apps, settings, log }) {
  const password = randomBytes(18).toString("base64url");
  const bindings = { ...settings.gatepost, ADMIN_PASSWORD_HASH: await hashPassword(password) };
  const server = await startServer("wrangler dev", apps.gatepost, { bindings, name: "cpu" });
  try {
    const url = server.url;
    const get =
      (path, headers = {}) =>
      async () => {
        const res = await fetch(`${url}${path}`, { headers });
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
    const rows = {};
    log("cpu: page view, accepted post, post with a 1 MiB file");
    rows.page = await perRequest(server, COUNT.page, get("/f/contact"), (s) => s === 200);
    rows.accept = await perRequest(
      server,
      COUNT.accept,
      post("/f/contact", contactBody, "application/x-www-form-urlencoded"),
      (s) => s === 303,
    );
    rows.upload = await perRequest(server, COUNT.upload, post("/f/apply", upload.makeBody, upload.contentType), (s) => s === 303);
    const cookie = await signIn(server, password);
    const admin = { cookie, "sec-fetch-site": "same-origin" };
    const listed = await (await fetch(`${url}/admin/submissions?form=contact`, { headers: admin })).text();
    const id = /\/admin\/submissions\/([0-9a-f-]{36})/.exec(listed)?.[1];
    if (!id) throw new Error("the console list showed no submission");
    log("cpu: console list, submission page, export, cron run");
    rows.list = await perRequest(server, COUNT.list, get("/admin/submissions?form=contact", admin), (s) => s === 200);
    rows.submission = await perRequest(server, COUNT.submission, get(`/admin/submissions/${id}`, admin), (s) => s === 200);
    rows.export = await perRequest(server, COUNT.export, get("/admin/export?form=contact&format=csv", admin), (s) => s === 200);
    const tick = async () => (await server.tick(), 200);
    rows.cron = await perRequest(server, COUNT.cron, tick, () => true);
    // A job's own minute: its booked next run removed before each run, so the run does that job's work.
    for (const job of CADENCE_JOBS) {
      log(`cpu: cron run on ${job}'s minute`);
      const due = async () => void queryD1(server, `DELETE FROM maintenance_cursors WHERE name = 'next-run:${job}'`);
      rows[`cron:${job}`] = await perRequest(server, COUNT.cronJob, tick, () => true, due);
    }
    return { rows, submissionsStored: COUNT.accept + 1 };
  } finally {
    await server.stop();
  }
}

const LABELS = {
  page: "Page view, GET /f/contact",
  accept: "Accepted post, POST /f/contact (webhook to the sink, first attempt included)",
  upload: "Post with a 1 MiB file, POST /f/apply (R2 put)",
  list: "Console list, GET /admin/submissions",
  submission: "Submission page, GET /admin/submissions/:id",
  export: "Export, GET /admin/export (CSV of every contact submission)",
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

export function render(d) {
  return [
    `One \`wrangler dev\` server, requests one at a time; workerd's CPU (user + system) over the requests, after one warm-up each.`,
    `The export read ${d.submissionsStored} stored submissions.`,
    "",
    "| Request | Requests | workerd CPU per request | Free's 10 ms |",
    "|---|---|---|---|",
    ...Object.entries(d.rows).map(
      ([kind, row]) =>
        `| ${LABELS[kind]} | ${row.n} | ${row.cpuMs} ms | ${row.unexpected.length > 0 ? `not measured (answers ${row.unexpected.join(", ")})` : row.cpuMs <= FREE_CPU_MS ? "fits" : "exceeds"} |`,
    ),
  ];
}

export function summarize(d) {
  return Object.fromEntries(Object.entries(d.rows).map(([kind, row]) => [kind, row.cpuMs]));
}

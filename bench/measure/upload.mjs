// Accepted posts with a 1 MiB PDF in one runtime: Gatepost's /f/apply against the bare app's /submit?upload, in
// req/s and CPU per post; then the peak memory one upload takes: per post, on a fresh server, VmHWM reset before
// each post and read after (/proc), the largest rise of uploads against that of small posts, as a multiple of the
// file's size. (A load run's growth was tried first: it is the collector's timing.)
import { loadPost, loadTrial, warmUp } from "../lib/load.mjs";
import { alternateLoads, alternateRounds } from "../lib/rounds.mjs";
import { startServer } from "../lib/servers.mjs";
import { median, pairedRatio, round } from "../lib/stats.mjs";
import { baselineBodies, baselineFields, benchPdf, gatepostBodies, gatepostFields, multipartBodies } from "../lib/submit.mjs";
import { loadTable } from "../lib/tables.mjs";
import { atLeast, byRuntime } from "../lib/targets.mjs";

export const name = "upload";
export const title = "Accepted posts with a 1 MiB file";
export const order = 50;
export const perRuntime = true;

export const FILE_BYTES = 1024 * 1024;
/** Posts per memory trial (each one alone). */
const MEMORY_POSTS = 30;
const VARIANT = "noDestination";
const APPLY_FIELDS = { name: "Bench Mark", email: "bench@example.org" };

/** subject → [app, settings variant, upload path, small-post path, label]. */
const SUBJECTS = {
  reference: ["baseline", "baseline", "/submit?upload", "/submit", "reference POST /submit?upload (verify, R2 put, insert)"],
  upload: ["gatepost", VARIANT, "/f/apply", "/f/contact", "Gatepost POST /f/apply with the PDF, no destination, vs reference"],
};

/** Bodies for one path: { url, makeBody, contentType }, a fresh token (and for Gatepost a fresh page visit) each. */
async function bodiesFor(server, app, pathname, settings, file) {
  const url = `${server.url}${pathname}`;
  const signingSecret = settings[VARIANT].FORM_SIGNING_SECRET;
  if (!file) {
    const makeBody = app === "gatepost" ? await gatepostBodies(url, "contact", { signingSecret }) : baselineBodies(url);
    return { url, makeBody, contentType: "application/x-www-form-urlencoded" };
  }
  const makeFields =
    app === "gatepost" ? await gatepostFields(url, "apply", { signingSecret, fields: APPLY_FIELDS }) : baselineFields(url, APPLY_FIELDS);
  return { url, ...multipartBodies(makeFields, file) };
}

const requestInit =
  (server, { makeBody, contentType }) =>
  () => ({
    method: "POST",
    body: makeBody(),
    headers: { origin: server.url, "content-type": contentType },
  });

/** A memory trial: MEMORY_POSTS posts one after the other, each with the peak reset before it; its rises in KiB. */
function memoryTrial(server, bodies) {
  const init = requestInit(server, bodies);
  return async () => {
    const rises = [];
    for (let i = 0; i < MEMORY_POSTS; i++) {
      const { rss } = server.memoryKiB();
      server.resetPeak();
      const res = await fetch(bodies.url, { redirect: "manual", ...init() });
      await res.arrayBuffer();
      if (res.status !== 303) throw new Error(`memory trial ${bodies.url}: expected 303, got ${res.status}`);
      rises.push(server.memoryKiB().hwm - rss);
    }
    return { rises, rssKiB: server.memoryKiB().rss };
  };
}

/** The memory trials on fresh servers (one per app), stopped at the end. */
async function measureMemory({ apps, servers, settings, opts, between, log }, file) {
  const started = [];
  try {
    const trials = {};
    for (const [subject, [app, variant, uploadPath, smallPath]] of Object.entries(SUBJECTS)) {
      const server = await startServer(servers.runtime, apps[app], { bindings: settings[variant], name: `${app}-memory` });
      started.push(server);
      const upload = await bodiesFor(server, app, uploadPath, settings, file);
      const small = await bodiesFor(server, app, smallPath, settings, null);
      await warmUp(small.url, requestInit(server, small), 5);
      await warmUp(upload.url, requestInit(server, upload), 5);
      trials[`${subject}Small`] = memoryTrial(server, small);
      trials[`${subject}Upload`] = memoryTrial(server, upload);
    }
    return await alternateRounds(trials, { rounds: opts.rounds, between, log, label: `${servers.runtime} upload memory` });
  } finally {
    for (const server of started) await server.stop();
  }
}

export async function run(ctx) {
  const { servers, settings, opts, between, log } = ctx;
  const file = { field: "cv", name: "bench-cv.pdf", type: "application/pdf", bytes: benchPdf(FILE_BYTES) };
  const trials = {};
  for (const [subject, [app, variant, uploadPath]] of Object.entries(SUBJECTS)) {
    const server = await servers.get(app, variant);
    const upload = await bodiesFor(server, app, uploadPath, settings, file);
    const headers = { origin: server.url, "content-type": upload.contentType };
    await warmUp(upload.url, requestInit(server, upload));
    trials[subject] = loadTrial(server, () => loadPost(upload.url, upload.makeBody, { ...opts.load, headers }), {
      freshen: opts.load.connections,
    });
  }
  const label = `${servers.runtime} upload`;
  const loads = await alternateLoads(trials, { rounds: opts.rounds, between, expect: { reference: "303", upload: "303" }, log, label });
  const memory = await measureMemory(ctx, file);
  const largest = (list) => Math.max(...list.flatMap((r) => r.rises));
  const peaks = Object.fromEntries(
    Object.entries(memory).map(([trial, list]) => [
      trial,
      {
        largestKiB: largest(list),
        perRound: list.map((r) => Math.max(...r.rises)),
        medianKiB: median(list.flatMap((r) => r.rises)),
        rssKiB: median(list.map((r) => r.rssKiB)),
      },
    ]),
  );
  const multiple = (subject) =>
    round(((peaks[`${subject}Upload`].largestKiB - peaks[`${subject}Small`].largestKiB) * 1024) / FILE_BYTES, 1);
  return {
    rounds: opts.rounds,
    secondsPerRound: opts.load.duration,
    fileBytes: FILE_BYTES,
    loads,
    memory: { posts: MEMORY_POSTS, peaks, multiple: { upload: multiple("upload"), reference: multiple("reference") } },
    ratios: {
      uploadRps: pairedRatio(loads.upload, loads.reference).median,
      uploadCpu: pairedRatio(loads.upload, loads.reference, "cpuPerRound").median,
    },
  };
}

export function targets(data) {
  return [
    atLeast(
      "Accept with a 1 MiB PDF (POST /f/apply, no destination), req/s ÷ the reference that verifies, puts in R2, inserts",
      0.8,
      byRuntime(data, (d) => d.ratios.uploadRps),
    ),
  ];
}

const MEMORY_ROWS = [
  ["upload", "Gatepost: /f/apply with the PDF; /f/contact"],
  ["reference", "reference: /submit?upload with the PDF; /submit"],
];

export function render(data) {
  return Object.entries(data).flatMap(([runtime, d]) => [
    `**${runtime}** (${d.rounds} rounds of ${d.secondsPerRound} s; a ${d.fileBytes / 1024} KiB PDF with a \`%PDF-\` header made by the bench, a fresh token each post; the ratio against the reference, paired round by round; peak memory per post: bench/results/details.md):`,
    "",
    ...loadTable(
      Object.entries(SUBJECTS).map(([subject, [, , , , label]]) => ({
        label,
        load: d.loads[subject],
        against: subject === "upload" ? d.loads.reference : null,
      })),
    ),
    "",
  ]);
}

/** Peak memory per post, a diagnostic with no target: bench/results/details.md. */
export function renderDetail(data) {
  const mib = (kib) => round(kib / 1024, 2);
  const first = Object.values(data)[0];
  if (!first) return [];
  const cell = (p) => `${mib(p.largestKiB)} (${p.perRound.map(mib).join(" / ")}); median ${mib(p.medianKiB)}`;
  return [
    "### Peak memory per post with a 1 MiB file",
    "",
    `On a fresh server per app (5 posts of each kind first), ${first.memory.posts} posts one after the other per trial, ${first.rounds} rounds alternating uploads and small posts. Before each post the app's workerd's VmHWM is set back to its VmRSS (\`echo 5 > /proc/<pid>/clear_refs\`); after its answer, VmHWM − that VmRSS (/proc/<pid>/status) is the new resident memory the post needed. Memory freed by earlier posts is reused without showing, so the largest rise over all posts is the figure (each round's largest in brackets). Multiple of the file size: (the uploads' largest rise − the small posts') ÷ the file's size. It includes the local R2's buffers, which run in the same workerd for both apps.`,
    "",
    ...Object.entries(data).flatMap(([runtime, d]) => [
      `**${runtime}**:`,
      "",
      "| Server: upload; small post | Uploads' largest rise MiB (per round); median | Small posts' largest rise MiB (per round); median | Resident after, MiB | Multiple of the file size |",
      "|---|---|---|---|---|",
      ...MEMORY_ROWS.map(([subject, label]) => {
        const small = d.memory.peaks[`${subject}Small`];
        const upload = d.memory.peaks[`${subject}Upload`];
        return `| ${label} | ${cell(upload)} | ${cell(small)} | ${mib(upload.rssKiB)} | ${d.memory.multiple[subject]} |`;
      }),
      "",
    ]),
  ];
}

export function summarize(data) {
  return byRuntime(data, (d) => ({
    ...d.ratios,
    memoryMultiple: d.memory.multiple,
    cpuMs: Object.fromEntries(Object.entries(d.loads).map(([s, l]) => [s, l.cpuMs])),
  }));
}

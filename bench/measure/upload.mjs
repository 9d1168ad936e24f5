// Accepted posts with a file, in one runtime: Gatepost's POST /f/apply (no destination) with a 1 MiB
// PDF made here against the bare app's reference that verifies the token, puts the same bytes in R2
// and inserts one row (/submit?upload), in req/s and workerd CPU per post; then the peak memory one
// upload takes. Memory: over a single-connection load run, the high-water mark of the resident memory
// (VmHWM in /proc/<pid>/status, set back to the resident size with `echo 5 > /proc/<pid>/clear_refs`
// just before the run) of the app's workerd, for uploads and for small posts (Gatepost's /f/contact,
// the reference's /submit) on the same server in alternating rounds; the upload's peak less the small
// post's, divided by the file's size, is the multiple of the file size an upload in flight costs
// (garbage not collected yet included, so it is an upper bound).
import { loadPost, loadTrial, warmUp } from "../lib/load.mjs";
import { alternateLoads, alternateRounds } from "../lib/rounds.mjs";
import { median, pairedRatio, round } from "../lib/stats.mjs";
import { baselineBodies, baselineFields, benchPdf, gatepostBodies, gatepostFields, multipartBodies } from "../lib/submit.mjs";
import { loadTable } from "../lib/tables.mjs";
import { atLeast, byRuntime } from "../lib/targets.mjs";

export const name = "upload";
export const title = "Accepted posts with a 1 MiB file";
export const order = 50;
export const perRuntime = true;

export const FILE_BYTES = 1024 * 1024;
const VARIANT = "noDestination";
const APPLY_FIELDS = { name: "Bench Mark", email: "bench@example.org" };

/** subject → [app, settings variant, path, label]. */
const SUBJECTS = {
  reference: ["baseline", "baseline", "/submit?upload", "reference POST /submit?upload (verify, R2 put, insert)"],
  upload: ["gatepost", VARIANT, "/f/apply", "Gatepost POST /f/apply with the PDF, no destination, vs reference"],
};

/** Bodies for `subject`: { makeBody, contentType }, a fresh token (and for Gatepost a fresh page visit) each. */
async function bodiesFor(server, app, pathname, settings, file) {
  const url = `${server.url}${pathname}`;
  if (!file) {
    const makeBody =
      app === "gatepost"
        ? await gatepostBodies(url, "contact", { signingSecret: settings[VARIANT].FORM_SIGNING_SECRET })
        : baselineBodies(url);
    return { url, makeBody, contentType: "application/x-www-form-urlencoded" };
  }
  const makeFields =
    app === "gatepost"
      ? await gatepostFields(url, "apply", { signingSecret: settings[VARIANT].FORM_SIGNING_SECRET, fields: APPLY_FIELDS })
      : baselineFields(url, APPLY_FIELDS);
  return { url, ...multipartBodies(makeFields, file) };
}

function postRun(server, { url, makeBody, contentType }, load) {
  const headers = { origin: server.url, "content-type": contentType };
  return {
    warm: () => warmUp(url, () => ({ method: "POST", body: makeBody(), headers })),
    load: () => loadPost(url, makeBody, { ...load, headers }),
  };
}

/** A memory trial: the workerd's peak set back to its resident size, a load run, then the peak. */
function memoryTrial(server, run) {
  return async () => {
    const before = server.memoryKiB();
    server.resetPeak();
    const load = await run();
    const after = server.memoryKiB();
    return { ...load, rssBeforeKiB: before.rss, peakKiB: after.hwm };
  };
}

export async function run({ servers, settings, opts, between, log }) {
  const file = { field: "cv", name: "bench-cv.pdf", type: "application/pdf", bytes: benchPdf(FILE_BYTES) };
  const trials = {};
  const memoryTrials = {};
  for (const [subject, [app, variant, pathname]] of Object.entries(SUBJECTS)) {
    const server = await servers.get(app, variant);
    const upload = postRun(server, await bodiesFor(server, app, pathname, settings, file), opts.load);
    await upload.warm();
    trials[subject] = loadTrial(server, upload.load);
    // Memory: one connection, so one post is in flight at a time; small posts on the same server.
    const single = { ...opts.load, connections: 1 };
    const small = postRun(server, await bodiesFor(server, app, app === "gatepost" ? "/f/contact" : "/submit", settings, null), single);
    await small.warm();
    memoryTrials[`${subject}Small`] = memoryTrial(server, small.load);
    memoryTrials[`${subject}Upload`] = memoryTrial(
      server,
      postRun(server, await bodiesFor(server, app, pathname, settings, file), single).load,
    );
  }
  const label = `${servers.runtime} upload`;
  const expect = { reference: "303", upload: "303" };
  const loads = await alternateLoads(trials, { rounds: opts.rounds, between, expect, log, label });
  const memoryExpect = Object.fromEntries(Object.keys(memoryTrials).map((t) => [t, "303"]));
  const memory = await alternateRounds(memoryTrials, { rounds: opts.rounds, between, expect: memoryExpect, log, label: `${label} memory` });
  const multiples = (subject) =>
    memory[`${subject}Upload`].map((upload, i) => round(((upload.peakKiB - memory[`${subject}Small`][i].peakKiB) * 1024) / FILE_BYTES, 2));
  const peaks = Object.fromEntries(
    Object.entries(memory).map(([trial, list]) => [
      trial,
      { peakKiB: median(list.map((r) => r.peakKiB)), perRound: list.map((r) => r.peakKiB), rps: median(list.map((r) => r.rps)) },
    ]),
  );
  return {
    rounds: opts.rounds,
    secondsPerRound: opts.load.duration,
    fileBytes: FILE_BYTES,
    loads,
    memory: {
      peaks,
      multiples: { upload: multiples("upload"), reference: multiples("reference") },
      multiple: { upload: median(multiples("upload")), reference: median(multiples("reference")) },
    },
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
  ["upload", "Gatepost: /f/apply with the PDF vs /f/contact"],
  ["reference", "reference: /submit?upload with the PDF vs /submit"],
];

export function render(data) {
  return Object.entries(data).flatMap(([runtime, d]) => [
    `**${runtime}** (${d.rounds} rounds of ${d.secondsPerRound} s; a ${d.fileBytes / 1024} KiB PDF with a \`%PDF-\` header made by the bench, a fresh token each post; the ratio against the reference, paired round by round):`,
    "",
    ...loadTable(
      Object.entries(SUBJECTS).map(([subject, [, , , label]]) => ({
        label,
        load: d.loads[subject],
        against: subject === "upload" ? d.loads.reference : null,
      })),
    ),
    "",
    `Peak memory per upload (${runtime}): the app's workerd's VmHWM over a single-connection load run of ${d.secondsPerRound} s, reset to VmRSS with \`clear_refs\` just before it; uploads and small posts alternate on the same server (medians over ${d.rounds} rounds, per round in brackets). The multiple is (upload run's peak − small-post run's peak) ÷ the file's size; it counts garbage not collected yet (the R2 simulator runs in the same workerd, for both apps alike).`,
    "",
    "| Server | Small posts' peak MiB | Uploads' peak MiB | Uploads req/s (1 connection) | Multiple of the file size (per round) |",
    "|---|---|---|---|---|",
    ...MEMORY_ROWS.map(([subject, label]) => {
      const small = d.memory.peaks[`${subject}Small`];
      const upload = d.memory.peaks[`${subject}Upload`];
      const mib = (kib) => round(kib / 1024, 1);
      return `| ${label} | ${mib(small.peakKiB)} | ${mib(upload.peakKiB)} | ${upload.rps} | ${d.memory.multiple[subject]} (${d.memory.multiples[subject].join(" / ")}) |`;
    }),
    "",
  ]);
}

export function summarize(data) {
  return byRuntime(data, (d) => ({
    ...d.ratios,
    memoryMultiple: d.memory.multiple,
    cpuMs: Object.fromEntries(Object.entries(d.loads).map(([s, l]) => [s, l.cpuMs])),
  }));
}

// Lighthouse 12 (mobile) in Debian's Chromium on Gatepost's pages under `npm run start:offline`, with the bare
// app's `/` as a control and a trial page (that `/` with a slow script) that must score below 100. Runs first,
// while the machine is quiet; `node bench/measure/lighthouse.mjs` runs it alone.
import { fileURLToPath } from "node:url";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import puppeteer from "puppeteer-core";
import { CHROMIUM_FLAGS } from "../../scripts/chromium-flags.mjs";
import { spawnGroup } from "../../scripts/process-group.mjs";
import { alternateRounds } from "../lib/rounds.mjs";
import { freePort, ROOT, startServer, tracked } from "../lib/servers.mjs";
import { cpuTicks, hostSince } from "../lib/host.mjs";
import { gatepostBodies } from "../lib/submit.mjs";
import {
  CATEGORIES,
  judgePage,
  judgeTarget,
  MAX_OTHER_PERCENT,
  MAX_TRIES,
  MIN_BENCHMARK_INDEX,
  runCounted,
} from "../lib/lighthouse-verdict.mjs";

export const name = "lighthouse";
export const title = "Lighthouse";
export const order = 10;
/** Main-thread time the trial page's injected script blocks for after the load event. */
const TRIAL_BLOCK_MS = Number(process.env.LH_TRIAL_BLOCK_MS || 250);

/** `npm run start:offline` on `port` (built app, SKIP_BUILD), in its own process group. */
async function startOffline(port, timeoutMs = 180_000) {
  const group = spawnGroup("npm", ["run", "start:offline"], {
    cwd: ROOT,
    // Its own limits: the local D1 may hold 127.0.0.1's counts for the day from `npm start`.
    env: {
      ...process.env,
      PORT: String(port),
      STANDIN_PORT: String(await freePort()),
      SINK_PORT: "0",
      SKIP_BUILD: "1",
      NO_COLOR: "1",
      FORM_RATE_LIMIT_PER_MINUTE: "1000000000",
      FORM_RATE_LIMIT_PER_DAY: "1000000000",
    },
    graceMs: 15_000,
  });
  const { output, exited } = group;
  const stop = tracked(group.stop);
  const url = `http://localhost:${port}`;
  const deadline = Date.now() + timeoutMs;
  while (!output().includes("Gatepost is running")) {
    if (exited() || Date.now() > deadline) {
      await stop();
      throw new Error(`npm run start:offline did not start:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return { url, stop };
}

/** Sends one real contact submission and returns the thank-you URL it redirects to. */
async function createThankYouPage(baseUrl) {
  const makeBody = await gatepostBodies(`${baseUrl}/f/contact`);
  // The page's signed stamp must be older than the minimum fill time (3 s by default).
  await new Promise((r) => setTimeout(r, 3_500));
  const res = await fetch(`${baseUrl}/f/contact`, {
    method: "POST",
    redirect: "manual",
    body: makeBody(),
    headers: { "content-type": "application/x-www-form-urlencoded", origin: baseUrl },
  });
  const location = res.headers.get("location");
  if (res.status !== 303 || !location) throw new Error(`the contact form answered ${res.status}, not a redirect`);
  return new URL(location, baseUrl).toString();
}

/** A long task right after an http page's load event, landing in total blocking time as a slow script would. */
const slowScript = (ms) =>
  `if (location.protocol.startsWith("http")) addEventListener("load", () => setTimeout(() => { const end = performance.now() + ${ms}; while (performance.now() < end); }, 0));`;

/** One Lighthouse run of `page` in a fresh tab: scores (0–100), the benchmark index, the machine's idle share, what fell short. */
async function auditOnce(browser, page) {
  const tab = await browser.newPage();
  try {
    if (page.inject) await tab.evaluateOnNewDocument(page.inject);
    const before = cpuTicks();
    const { lhr } = await lighthouse(page.url, { output: "json", logLevel: "error" }, undefined, tab);
    const host = hostSince(before);
    if (lhr.runtimeError) throw new Error(`Lighthouse failed on ${page.url}: ${lhr.runtimeError.message}`);
    const failing = [];
    for (const c of CATEGORIES) {
      for (const ref of lhr.categories[c].auditRefs) {
        const audit = lhr.audits[ref.id];
        if (ref.weight > 0 && audit.score !== null && audit.score < 1) failing.push(`${audit.id} ${audit.displayValue ?? audit.score}`);
      }
    }
    return {
      scores: Object.fromEntries(CATEGORIES.map((c) => [c, Math.round(lhr.categories[c].score * 100)])),
      benchmarkIndex: Math.round(lhr.environment.benchmarkIndex),
      // What else the machine did meanwhile: the index is taken once, before the page loads.
      otherPercent: host.otherPercent,
      idlePercent: host.idlePercent,
      failing,
    };
  } finally {
    await tab.close().catch(() => {});
  }
}

/** Audits `pages` `runs` times each in alternating rounds, slow hosts retried; one judged result per page. */
export async function auditPages(pages, { runs, log = console.log }) {
  const chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROME_PATH || "/usr/bin/chromium",
    chromeFlags: ["--headless", ...CHROMIUM_FLAGS],
  });
  try {
    const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}` });
    const trials = Object.fromEntries(
      pages.map((page) => [
        page.name,
        () =>
          runCounted(() => auditOnce(browser, page), {
            onSlow: (why, attempt) =>
              log(`Lighthouse ${page.name}: host too slow to measure (${why}), try ${attempt}/${MAX_TRIES} not counted`),
          }),
      ]),
    );
    const rounds = await alternateRounds(trials, { rounds: runs, log, label: "lighthouse" });
    await browser.disconnect();
    return pages.map((page) => ({ name: page.name, ...judgePage(rounds[page.name]) }));
  } finally {
    chrome.kill();
  }
}

export async function run({ apps, settings, opts, log }) {
  const gatepost = await startOffline(await freePort());
  const baseline = await startServer("wrangler dev", apps.baseline, { bindings: settings.baseline, name: "lighthouse-baseline" }).catch(
    async (error) => (await gatepost.stop(), Promise.reject(error)),
  );
  try {
    const pages = [
      { name: "/", url: `${gatepost.url}/` },
      { name: "/f/contact", url: `${gatepost.url}/f/contact` },
      // Each language ships only its own texts: a long-word, a CJK and a right-to-left page.
      ...["de", "ja", "ar"].map((lang) => ({ name: `/f/contact?lang=${lang}`, url: `${gatepost.url}/f/contact?lang=${lang}` })),
      { name: "thank-you view", url: await createThankYouPage(gatepost.url) },
      { name: "/admin/login", url: `${gatepost.url}/admin/login` },
    ];
    const control = { name: "bare app /", url: `${baseline.url}/` };
    const trial = { name: `bare app / + ${TRIAL_BLOCK_MS} ms script`, url: `${baseline.url}/`, inject: slowScript(TRIAL_BLOCK_MS) };
    log(
      `Lighthouse, ${opts.lhRuns} counted runs per page (retried below index ${MIN_BENCHMARK_INDEX} or above ${MAX_OTHER_PERCENT} % other load)`,
    );
    const results = await auditPages([control, ...pages, trial], { runs: opts.lhRuns, log });
    return {
      minBenchmarkIndex: MIN_BENCHMARK_INDEX,
      maxOtherPercent: MAX_OTHER_PERCENT,
      maxTries: MAX_TRIES,
      trialBlockMs: TRIAL_BLOCK_MS,
      control: results[0],
      pages: results.slice(1, -1),
      trial: results.at(-1),
    };
  } finally {
    await baseline.stop();
    await gatepost.stop();
  }
}

export function targets(data) {
  const lowest = Math.min(...data.pages.filter((p) => p.median).flatMap((p) => Object.values(p.median)));
  return [
    {
      name: "Lighthouse, every page, every category (median of counted runs)",
      asks: "= 100",
      measured: { lowest: Number.isFinite(lowest) ? lowest : null, trial: data.trial.median?.performance ?? null },
      verdict: judgeTarget(data.pages, data.trial),
    },
  ];
}

export function render(data) {
  const lines = [
    "Lighthouse 12.2.3, mobile preset, Gatepost under `npm run start:offline` and the bare app under `wrangler dev`, each page once per",
    `round. A run counts only when Lighthouse's benchmark index of the host (taken once, before the page loads) is at least`,
    `${data.minBenchmarkIndex} and other processes took at most ${data.maxOtherPercent} % of the machine's CPU during it; otherwise it is tried again (at most`,
    `${data.maxTries} tries per counted run). Per counted run in brackets: the index and the share other processes took. The first row is`,
    "the control: the bare app's `/` cannot regress, so below 100 there means the host disturbed a counted run. The last row is the",
    `trial: the same \`/\` with a script that blocks the main thread ${data.trialBlockMs} ms, which must score below 100.`,
    "",
    "| Page | Perf. | A11y | Best pr. | SEO | Performance per counted run | Runs not counted | Verdict | Below 1 in some run |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const p of [data.control, ...data.pages, data.trial]) {
    const m = p.median ?? {};
    const runs = p.runs.map((r) => `${r.scores.performance} (${r.benchmarkIndex}, ${r.otherPercent} %)`).join(", ");
    const failing = [...new Set(p.runs.flatMap((r) => r.failing))].join("; ");
    const slow = p.slow.map((why) => why.replace(/ [<>] .*$/, "")).join(", ") || "–";
    lines.push(
      `| ${p.name} | ${m.performance ?? "–"} | ${m.accessibility ?? "–"} | ${m["best-practices"] ?? "–"} | ${m.seo ?? "–"} | ${runs || "–"} | ${slow} | ${p.verdict} | ${failing || "–"} |`,
    );
  }
  return lines;
}

export function summarize(data) {
  return Object.fromEntries(
    [...data.pages, data.trial].map((p) => [p.name, { median: p.median, slow: p.slow.length, verdict: p.verdict }]),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // Pages of a server you started; LH_INJECT_MS=250 injects the trial's slow script into each.
  const inject = process.env.LH_INJECT_MS ? slowScript(Number(process.env.LH_INJECT_MS)) : undefined;
  const pages = process.argv.slice(2).map((url) => ({ name: url, url, inject }));
  if (pages.length === 0) throw new Error("usage: [LH_RUNS=3] [LH_INJECT_MS=250] node bench/measure/lighthouse.mjs <url> …");
  for (const r of await auditPages(pages, { runs: Number(process.env.LH_RUNS || 3) })) console.log(JSON.stringify(r));
}

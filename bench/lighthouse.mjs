// Lighthouse 12 (mobile preset, the default config) against `npm run start:offline`, in Debian's
// Chromium. Each page runs `runs` times, in rounds; the report keeps every run and the median per category,
// as Lighthouse's own docs advise for a machine whose load varies. `node bench/lighthouse.mjs`.
import { fileURLToPath } from "node:url";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import { CHROMIUM_FLAGS } from "../scripts/chromium-flags.mjs";
import { spawnGroup } from "../scripts/process-group.mjs";
import { freePort, ROOT } from "./lib/servers.mjs";
import { cpuTicks, stealSince } from "./lib/steal.mjs";
import { gatepostBodies } from "./lib/submit.mjs";

export const CHROME_FLAGS = ["--headless", ...CHROMIUM_FLAGS];
const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"];

/** `npm run start:offline` on `port` (built app, SKIP_BUILD), in its own process group. */
export async function startOffline(port, timeoutMs = 180_000) {
  // start.mjs stops its own children (pages dev group, stand-in, sink, drain) on SIGTERM: give it time.
  const { output, exited, stop } = spawnGroup("npm", ["run", "start:offline"], {
    cwd: ROOT,
    // Its own limits: the local D1 may already hold the day's counts of 127.0.0.1 from `npm start`,
    // which would answer the thank-you page's post with 429 (issue 18.6).
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
  const url = `http://localhost:${port}`;
  const deadline = Date.now() + timeoutMs;
  while (!output().includes("Gatepost is running")) {
    if (exited() || Date.now() > deadline) {
      await stop();
      throw new Error(`npm run start:offline did not start:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return { url, stop, output };
}

/** Sends one real contact submission and returns the thank-you URL it redirects to. */
export async function createThankYouPage(baseUrl) {
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

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Runs Lighthouse `runs` times on each page, in rounds (every page once per round), so a stretch of
 * machine load hits all pages of a round alike. Resolves to scores (0–100) per run, each with
 * Lighthouse's benchmark index and the VM's steal during that run, and their medians.
 */
export async function runLighthouse(pages, { runs = 3, chromePath = process.env.CHROME_PATH || "/usr/bin/chromium" } = {}) {
  const chrome = await chromeLauncher.launch({ chromePath, chromeFlags: CHROME_FLAGS });
  const results = pages.map(({ name, url }) => ({ name, url, runs: [], failing: new Set() }));
  try {
    for (let i = 0; i < runs; i++) {
      for (const page of results) {
        const ticks = cpuTicks();
        const { lhr } = await lighthouse(page.url, { port: chrome.port, output: "json", logLevel: "error" });
        if (lhr.runtimeError) throw new Error(`Lighthouse failed on ${page.url}: ${lhr.runtimeError.message}`);
        page.runs.push({
          ...Object.fromEntries(CATEGORIES.map((c) => [c, Math.round(lhr.categories[c].score * 100)])),
          benchmarkIndex: Math.round(lhr.environment.benchmarkIndex),
          stealPercent: stealSince(ticks),
        });
        for (const c of CATEGORIES) {
          for (const ref of lhr.categories[c].auditRefs) {
            const audit = lhr.audits[ref.id];
            if (ref.weight > 0 && audit.score !== null && audit.score < 1)
              page.failing.add(`${audit.id} ${audit.displayValue ?? audit.score}`);
          }
        }
      }
    }
  } finally {
    chrome.kill();
  }
  return results.map(({ failing, ...page }) => ({
    ...page,
    median: Object.fromEntries(CATEGORIES.map((c) => [c, median(page.runs.map((s) => s[c]))])),
    notPerfect: [...failing],
  }));
}

/**
 * Starts the app, creates a thank-you page, and audits the four pages of issue 6. A `control` page
 * (the baseline's) runs in the same rounds and comes back as `baseline`.
 */
export async function auditGatepost({ runs = 3, port, control } = {}) {
  const app = await startOffline(port ?? (await freePort()));
  try {
    const pages = [
      { name: "/", url: `${app.url}/` },
      { name: "/f/contact", url: `${app.url}/f/contact` },
      { name: "thank-you view", url: await createThankYouPage(app.url) },
    ];
    const admin = await fetch(`${app.url}/admin/login`);
    const missing = [];
    if (admin.status === 200) pages.push({ name: "/admin/login", url: `${app.url}/admin/login` });
    else missing.push(`/admin/login answered ${admin.status}`);
    const controls = control ? [control] : [];
    const results = await runLighthouse([...controls, ...pages], { runs });
    return { results: results.slice(controls.length), baseline: results.slice(0, controls.length), missing };
  } finally {
    await app.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { results, missing } = await auditGatepost({ runs: Number(process.env.LH_RUNS || 3) });
  for (const r of results)
    console.log(
      r.name.padEnd(16),
      JSON.stringify(r.median),
      "runs:",
      JSON.stringify(r.runs.map((s) => s.performance)),
      r.notPerfect.join("; "),
    );
  for (const m of missing) console.log("missing:", m);
}

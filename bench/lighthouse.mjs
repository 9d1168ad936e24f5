// Lighthouse 12 (mobile preset, the default config) against `npm run start:offline`, in Debian's
// Chromium. Each page runs `runs` times; the report keeps every run and the median per category,
// as Lighthouse's own docs advise for a machine whose load varies. `node bench/lighthouse.mjs`.
import { fileURLToPath } from "node:url";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import { CHROMIUM_FLAGS } from "../scripts/chromium-flags.mjs";
import { spawnGroup } from "../scripts/process-group.mjs";
import { freePort, ROOT } from "./lib/servers.mjs";
import { gatepostBodies } from "./lib/submit.mjs";

export const CHROME_FLAGS = ["--headless", ...CHROMIUM_FLAGS];
const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"];

/** `npm run start:offline` on `port` (built app, SKIP_BUILD), in its own process group. */
export async function startOffline(port, timeoutMs = 180_000) {
  // start.mjs stops its own children (pages dev group, stand-in, sink, drain) on SIGTERM: give it time.
  const { output, exited, stop } = spawnGroup("npm", ["run", "start:offline"], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), STANDIN_PORT: String(await freePort()), SINK_PORT: "0", SKIP_BUILD: "1", NO_COLOR: "1" },
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

/** Runs Lighthouse `runs` times on each page; resolves to scores (0–100) per run and their medians. */
export async function runLighthouse(pages, { runs = 3, chromePath = process.env.CHROME_PATH || "/usr/bin/chromium" } = {}) {
  const chrome = await chromeLauncher.launch({ chromePath, chromeFlags: CHROME_FLAGS });
  const results = [];
  try {
    for (const { name, url } of pages) {
      const scores = [];
      const failing = new Set();
      for (let i = 0; i < runs; i++) {
        const { lhr } = await lighthouse(url, { port: chrome.port, output: "json", logLevel: "error" });
        if (lhr.runtimeError) throw new Error(`Lighthouse failed on ${url}: ${lhr.runtimeError.message}`);
        scores.push({
          ...Object.fromEntries(CATEGORIES.map((c) => [c, Math.round(lhr.categories[c].score * 100)])),
          benchmarkIndex: Math.round(lhr.environment.benchmarkIndex),
        });
        for (const c of CATEGORIES) {
          for (const ref of lhr.categories[c].auditRefs) {
            const audit = lhr.audits[ref.id];
            if (ref.weight > 0 && audit.score !== null && audit.score < 1) failing.add(`${audit.id} ${audit.displayValue ?? audit.score}`);
          }
        }
      }
      const medians = Object.fromEntries(CATEGORIES.map((c) => [c, median(scores.map((s) => s[c]))]));
      results.push({ name, url, runs: scores, median: medians, notPerfect: [...failing] });
    }
  } finally {
    chrome.kill();
  }
  return results;
}

/** Starts the app, creates a thank-you page, and audits the four pages of issue 6. */
export async function auditGatepost({ runs = 3, port } = {}) {
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
    return { results: await runLighthouse(pages, { runs }), missing };
  } finally {
    await app.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { results, missing } = await auditGatepost({ runs: Number(process.env.LH_RUNS || 3) });
  for (const r of results) console.log(r.name.padEnd(16), JSON.stringify(r.median), "runs:", JSON.stringify(r.runs.map((s) => s.performance)), r.notPerfect.join("; "));
  for (const m of missing) console.log("missing:", m);
}

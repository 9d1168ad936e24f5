// JS per page, read from the client builds' manifests (bench/js-bytes.mjs): every Gatepost page
// against the bare app's `/`, and the bare app with Gatepost's route table beside it.
import path from "node:path";
import { BASELINE_CLIENT, ROUTES_BASELINE_DIR } from "../build-baseline.mjs";
import { measureAllPages, measureRouteJs } from "../js-bytes.mjs";
import { ROOT } from "../lib/servers.mjs";
import { round } from "../lib/stats.mjs";
import { atMost } from "../lib/targets.mjs";

export const name = "js";
export const title = "JS per page";
export const order = 20;
const BUDGET = 10 * 1024;
const kib = (bytes) => (bytes / 1024).toFixed(1);
/** The pages the targets name; every other route is summed up in one row (its largest). */
const PAGE_NAMES = {
  "routes/_index": "/",
  "routes/f.$formId": "/f/:formId",
  "routes/f.$formId_.thanks.$submissionId": "thank-you view",
  "routes/admin_.login": "/admin/login",
};

export async function run() {
  return {
    baseline: measureRouteJs(BASELINE_CLIENT, "routes/_index"),
    routes: measureRouteJs(path.join(ROUTES_BASELINE_DIR, "build/client"), "routes/_index"),
    pages: measureAllPages(path.join(ROOT, "build/client")),
  };
}

export function targets(data) {
  const worst = Math.max(...data.pages.map((page) => page.gzip - data.baseline.gzip));
  return [atMost("JS per page − the bare app's, gzip", 10, { "worst KiB": round(worst / 1024) }, " KiB")];
}

export function render(data) {
  const base = data.baseline;
  const row = (label, page) => {
    const delta = page.gzip - base.gzip;
    return `| ${label} | ${page.files.length} | ${kib(page.raw)} | ${kib(page.gzip)} | ${kib(delta)} | ${delta <= BUDGET ? "ok" : "**over**"} |`;
  };
  const lines = ["| Page (route) | Files | Raw KiB | Gzip KiB | Δ gzip KiB vs bare `/` | Budget (≤ +10) |", "|---|---|---|---|---|---|"];
  for (const page of data.pages.filter((p) => PAGE_NAMES[p.routeId])) lines.push(row(PAGE_NAMES[page.routeId], page));
  const others = data.pages.filter((p) => !PAGE_NAMES[p.routeId]);
  if (others.length > 0) {
    const worst = others.reduce((a, b) => (b.gzip > a.gzip ? b : a));
    lines.push(row(`${others.length} other routes, the largest (${worst.routeId})`, worst));
  }
  lines.push(`| bare app \`/\` | ${base.files.length} | ${kib(base.raw)} | ${kib(base.gzip)} | | |`);
  lines.push(row("diagnostic: bare app with Gatepost's routes, `/`", data.routes).replace(/\| (ok|\*\*over\*\*) \|$/, "| |"));
  return lines;
}

export function summarize(data) {
  return { baselineGzip: data.baseline.gzip, worstDeltaGzip: Math.max(...data.pages.map((p) => p.gzip - data.baseline.gzip)) };
}

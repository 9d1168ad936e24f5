// Writes the measured figures into docs/performance.md between the bench markers, leaving the rest of
// the file (prose, the outbox helper's section) alone. Every number here comes from results.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./servers.mjs";

const START = "<!-- bench:results:start -->";
const END = "<!-- bench:results:end -->";
const kib = (bytes) => (bytes / 1024).toFixed(1);
const ms = (n) => (n === undefined || n === null ? "–" : `${n}`);
const x = (r) => (r === null || r === undefined ? "–" : r.toFixed(2));

const PAGE_NAMES = {
  "routes/_index": "/",
  "routes/f.$formId": "/f/:formId (contact)",
  "routes/f.$formId_.thanks.$submissionId": "thank-you view",
  "routes/admin_.login": "/admin/login",
};

function codes(load) {
  return Object.entries(load.statusCodes)
    .map(([code, n]) => `${n}×${code}`)
    .join(" ");
}

function loadRow(name, load, base, ratio) {
  return `| ${name} | ${load.rps} (${load.perRound.join(" / ")}) | ${ms(load.p50)} | ${ms(load.p99)} | ${codes(load)}${load.errors ? `, ${load.errors} errors` : ""} | ${base.rps} | ${x(ratio)} |`;
}

/** The markdown for one results object. */
export function renderResults(r) {
  const lines = [];
  lines.push(`Measured ${r.date} (finished ${r.finished}) with \`${r.command}\` on ${r.nproc} cores (\`nproc\`),`);
  lines.push(`Node ${r.node}, load average at the end ${r.loadAverage.join(" / ")} (the machine is shared with other`);
  lines.push(`test runs). Load tests: autocannon, ${r.connections} connections; baseline and Gatepost alternate in rounds,`);
  lines.push(`in the same run and the same runtime, so both sides of every ratio were measured together.`);
  lines.push("");
  lines.push("### JS per page (from the build manifests; gzip level 9, file by file)");
  lines.push("");
  lines.push("| Page (route) | Files | Raw KiB | Gzip KiB | Baseline gzip KiB | Δ gzip KiB | Budget (≤ +10 KiB) |");
  lines.push("|---|---|---|---|---|---|---|");
  const base = r.js.baseline;
  for (const page of r.js.pages) {
    const name = PAGE_NAMES[page.routeId] ?? page.routeId;
    const delta = page.gzip - base.gzip;
    lines.push(`| ${name} | ${page.files.length} | ${kib(page.raw)} | ${kib(page.gzip)} | ${kib(base.gzip)} | ${kib(delta)} | ${delta <= 10240 ? "ok" : "**over**"} |`);
  }
  lines.push(`| baseline / | ${base.files.length} | ${kib(base.raw)} | ${kib(base.gzip)} | | | |`);
  for (const run of r.runtimes) {
    lines.push("");
    lines.push(`### ${run.runtime === "pages dev" ? "Under `wrangler pages dev`" : "Under workerd through Miniflare directly (no pages dev proxy)"}`);
    lines.push("");
    lines.push(`Median of ${run.rounds} alternating rounds of ${run.secondsPerRound} s (req/s of each round in brackets).`);
    lines.push("");
    lines.push("| Request | req/s | p50 ms | p99 ms | Status codes | Baseline req/s | Ratio (target) |");
    lines.push("|---|---|---|---|---|---|---|");
    lines.push(`| baseline GET / | ${run.ssr.baseline.rps} (${run.ssr.baseline.perRound.join(" / ")}) | ${ms(run.ssr.baseline.p50)} | ${ms(run.ssr.baseline.p99)} | ${codes(run.ssr.baseline)} | | |`);
    lines.push(loadRow("GET /", run.ssr.home, run.ssr.baseline, run.ratios.homeRps).replace(/\|$/, "") + "(≥ 0.9) |");
    lines.push(loadRow("GET /f/contact", run.ssr.contact, run.ssr.baseline, run.ratios.contactRps).replace(/\|$/, "") + "(≥ 0.9) |");
    lines.push(`| baseline POST /submit | ${run.submit.baseline.rps} (${run.submit.baseline.perRound.join(" / ")}) | ${ms(run.submit.baseline.p50)} | ${ms(run.submit.baseline.p99)} | ${codes(run.submit.baseline)} | | |`);
    lines.push(loadRow("POST /f/contact, accepted, webhook destination", run.submit.ours, run.submit.baseline, run.ratios.submitRps).replace(/\|$/, "") + "(≥ 0.8) |");
    if (run.submit.noDestination) {
      lines.push(loadRow("POST /f/contact, accepted, no destination", run.submit.noDestination, run.submit.baseline, run.ratios.submitNoDestinationRps).replace(/\|$/, "") + "(≥ 0.8) |");
    }
  }
  if (r.profile) {
    lines.push("");
    lines.push(`### Submit path profile (workerd inspector, ${r.profile.ours.count} sequential accepted posts each)`);
    lines.push("");
    lines.push("The app's own time per accepted submission is its CPU time in its isolate: the stand-in provider");
    lines.push("runs in another process, so its time is not in it (sampling at 100 µs; a profiler and a loaded");
    lines.push("machine inflate both sides alike). Gatepost runs with its webhook destination configured.");
    lines.push("");
    lines.push("| App | CPU ms per accepted submission (app isolate) | Sequential p50 ms (incl. provider, D1) |");
    lines.push("|---|---|---|");
    lines.push(`| Gatepost POST /f/contact | ${r.profile.ours.cpuMsPerRequest} | ${r.profile.ours.sequentialP50Ms} |`);
    lines.push(`| baseline POST /submit | ${r.profile.baseline.cpuMsPerRequest} | ${r.profile.baseline.sequentialP50Ms} |`);
    lines.push("");
    lines.push("Gatepost's biggest self-time groups (package or app module), CPU ms per submission and share:");
    lines.push("");
    for (const g of r.profile.ours.topGroups.slice(0, 6)) lines.push(`- ${g.name}: ${g.msPerRequest} ms (${g.share} %)`);
    lines.push("");
    lines.push("Top functions:");
    lines.push("");
    for (const f of r.profile.ours.topFunctions.slice(0, 6)) lines.push(`- \`${f.name}\`: ${f.msPerRequest} ms (${f.share} %)`);
    lines.push("");
    lines.push("Top functions inside the app's server build (build/server/index.js: routes, app/lib, entry):");
    lines.push("");
    for (const f of (r.profile.ours.topAppFunctions ?? []).slice(0, 6)) lines.push(`- \`${f.name}\`: ${f.msPerRequest} ms (${f.share} %)`);
  }
  if (r.outbox) {
    lines.push("");
    lines.push("### Outbox drain (bench/outbox-drain.mjs, called from this run)");
    lines.push("");
    lines.push("```json");
    lines.push(JSON.stringify(r.outbox, null, 2));
    lines.push("```");
  }
  if (r.lighthouse) {
    lines.push("");
    lines.push("### Lighthouse 12.2.3, mobile preset, against `npm run start:offline` (median of each page's runs)");
    lines.push("");
    lines.push("Lighthouse's own CPU benchmark index per run is in brackets (higher is a less loaded machine).");
    lines.push("");
    lines.push("| Page | Performance | Accessibility | Best practices | SEO | Performance per run | Below 1 in some run |");
    lines.push("|---|---|---|---|---|---|---|");
    for (const p of [...r.lighthouse.results, ...(r.lighthouse.baseline ?? [])]) {
      const m = p.median;
      lines.push(`| ${p.name} | ${m.performance} | ${m.accessibility} | ${m["best-practices"]} | ${m.seo} | ${p.runs.map((s) => `${s.performance} (${s.benchmarkIndex ?? "?"})`).join(", ")} | ${p.notPerfect.join("; ") || "–"} |`);
    }
    for (const missing of r.lighthouse.missing) lines.push(`\nNot measured: ${missing}.`);
  }
  return lines.join("\n");
}

/** Replaces the bench block of docs/performance.md (creating the markers if needed). */
export function writeReport(results) {
  const file = path.join(ROOT, "docs/performance.md");
  const block = `${START}\n${renderResults(results)}\n${END}`;
  let text = existsSync(file) ? readFileSync(file, "utf8") : "# Performance\n\n## Results\n\n";
  if (text.includes(START) && text.includes(END)) {
    text = text.slice(0, text.indexOf(START)) + block + text.slice(text.indexOf(END) + END.length);
  } else {
    text = `${text.trimEnd()}\n\n${block}\n`;
  }
  writeFileSync(file, text);
}

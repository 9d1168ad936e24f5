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

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Round by round ours/baseline, and their median: each pair was measured back to back. */
export function pairedRatio(ours, base) {
  const perRound = ours.perRound.map((rps, i) => (base.perRound[i] > 0 ? rps / base.perRound[i] : 0));
  return { median: median(perRound), perRound };
}

function codes(load) {
  return Object.entries(load.statusCodes)
    .map(([code, n]) => `${n}×${code}`)
    .join(" ");
}

function loadRow(name, load, base) {
  const ratio = pairedRatio(load, base);
  return `| ${name} | ${load.rps} (${load.perRound.join(" / ")}) | ${ms(load.p50)} | ${ms(load.p99)} | ${codes(load)}${load.errors ? `, ${load.errors} errors` : ""} | ${base.rps} | ${x(ratio.median)} (${ratio.perRound.map(x).join(" / ")}) |`;
}

const round2 = (n) => (n === null || n === undefined || !Number.isFinite(n) ? null : Math.round(n * 100) / 100);

/**
 * One verdict per target of the issues (6 and 18), from the figures of this run only: each target
 * with what it asks, what was measured in each runtime, and "met" only when every figure meets it.
 */
export function judgeTargets(r) {
  const targets = [];
  const add = (name, atLeast, measured) => {
    const values = Object.values(measured).filter((v) => v !== null && v !== undefined);
    const verdict = values.length === 0 ? "not measured" : values.every((v) => v >= atLeast) ? "met" : "not met";
    targets.push({ name, atLeast, measured, verdict });
  };
  const perRuntime = (key) => Object.fromEntries(r.runtimes.map((run) => [run.runtime, round2(run.ratios[key])]));
  add("GET / req/s ÷ baseline GET /", 0.9, perRuntime("homeRps"));
  add("GET /f/contact req/s ÷ baseline GET /", 0.9, perRuntime("contactRps"));
  add("accept, no destination, req/s ÷ bare verify-and-insert action", 0.9, perRuntime("submitNoDestinationRps"));
  const p = r.profile;
  add("accept, no destination, workerd CPU: bare action's CPU ÷ Gatepost's", 0.75, {
    miniflare: p?.baseline && p?.noDestination ? round2(p.baseline.processCpuMsPerRequest / p.noDestination.processCpuMsPerRequest) : null,
  });
  add("accept, webhook destination, req/s ÷ reference with one signed delivery", 0.8, perRuntime("submitVsDeliveredRps"));
  if (r.js) {
    const worst = Math.max(...r.js.pages.map((page) => page.gzip - r.js.baseline.gzip));
    targets.push({
      name: "JS per page ≤ baseline + 10 KiB gzip",
      atLeast: null,
      measured: { "worst Δ KiB": round2(worst / 1024) },
      verdict: worst <= 10240 ? "met" : "not met",
    });
  }
  if (r.lighthouse) {
    const scores = r.lighthouse.results.flatMap((page) => Object.values(page.median));
    targets.push({
      name: "Lighthouse, every page, every category (median) = 100",
      atLeast: null,
      measured: { lowest: Math.min(...scores) },
      verdict: scores.every((v) => v === 100) ? "met" : "not met",
    });
  }
  return targets;
}

/** The line a run adds to bench/results/history.jsonl: when, where, and the figures the targets read. */
export function summarizeRun(r) {
  return {
    date: r.date,
    commit: r.commit,
    command: r.command,
    stealPercent: r.stealPercent,
    ratios: Object.fromEntries(r.runtimes.map((run) => [run.runtime, run.ratios])),
    cpuMsPerAccepted: r.profile ? Object.fromEntries(Object.entries(r.profile).map(([side, v]) => [side, v.processCpuMsPerRequest])) : null,
    latency: r.latency
      ? {
          d1LatencyMs: r.latency.d1LatencyMs,
          twoTripsRef: r.latency.twoTripsRef,
          twoTrips: { p50: r.latency.twoTrips.p50, p99: r.latency.twoTrips.p99 },
          oneTrip: { p50: r.latency.oneTrip.p50, p99: r.latency.oneTrip.p99 },
        }
      : null,
    verdicts: Object.fromEntries((r.targets ?? []).map((t) => [t.name, t.verdict])),
  };
}

/** The markdown for one results object. */
export function renderResults(r) {
  const lines = [];
  // A paragraph between blank lines; a "###" section with its intro; a table's head.
  const block = (...text) => lines.push("", ...text, "");
  const section = (title, ...intro) => {
    block(`### ${title}`);
    if (intro.length > 0) lines.push(...intro, "");
  };
  const table = (...headers) => lines.push(`| ${headers.join(" | ")} |`, `|${"---|".repeat(headers.length)}`);
  lines.push(`Measured ${r.date} (finished ${r.finished}) with \`${r.command}\` on ${r.nproc} cores (\`nproc\`),`);
  lines.push(`Node ${r.node}, load average at the end ${r.loadAverage.join(" / ")} (the machine is shared with other`);
  lines.push(
    `test runs)${r.stealPercent === undefined ? "" : `, ${r.stealPercent} % of this VM's CPU time taken by other guests (steal, /proc/stat) during the run`}. Load tests: autocannon, ${r.connections} connections; baseline and Gatepost alternate in rounds,`,
  );
  lines.push(`in the same run and the same runtime, so both sides of every ratio were measured together.`);
  if (r.targets) {
    section("Verdicts", `Each target against this run's figures (commit ${r.commit ?? "?"}); "met" only when every runtime meets it.`);
    table("Target", "Asks", "Measured", "Verdict");
    for (const t of r.targets) {
      const measured = Object.entries(t.measured)
        .map(([k, v]) => `${k}: ${v ?? "–"}`)
        .join(", ");
      lines.push(`| ${t.name} | ${t.atLeast === null ? "see name" : `≥ ${t.atLeast}`} | ${measured} | **${t.verdict}** |`);
    }
  }
  if (r.latency) {
    const l = r.latency;
    section(
      `Accept latency with ${l.d1LatencyMs} ms added to every D1 round trip (workerd through Miniflare)`,
      `What a visitor far from the database feels. The bench's runtime delays each D1 round trip (statement, batch, exec) by ${l.d1LatencyMs} ms;`,
      `Gatepost at ${l.twoTripsRef} (two trips before the answer) and this checkout (one) take the same posts, no destination, in ${l.rounds} alternating rounds of ${l.secondsPerRound} s.`,
    );
    table("Gatepost", "p50 ms", "p99 ms", "req/s", "Status codes");
    for (const [name, side] of [
      [`${l.twoTripsRef}: rate-limit trip, then store`, l.twoTrips],
      ["this checkout: one batch", l.oneTrip],
    ]) {
      lines.push(`| ${name} | ${ms(side.p50)} | ${ms(side.p99)} | ${side.rps} (${side.perRound.join(" / ")}) | ${codes(side)} |`);
    }
  }
  section("JS per page (from the build manifests; gzip level 9, file by file)");
  table("Page (route)", "Files", "Raw KiB", "Gzip KiB", "Baseline gzip KiB", "Δ gzip KiB", "Budget (≤ +10 KiB)");
  const base = r.js.baseline;
  // The pages of issue 6 by name; every other route in one line (its worst), to keep this page short.
  const named = r.js.pages.filter((page) => PAGE_NAMES[page.routeId]);
  const others = r.js.pages.filter((page) => !PAGE_NAMES[page.routeId]);
  for (const page of named) {
    const delta = page.gzip - base.gzip;
    lines.push(
      `| ${PAGE_NAMES[page.routeId]} | ${page.files.length} | ${kib(page.raw)} | ${kib(page.gzip)} | ${kib(base.gzip)} | ${kib(delta)} | ${delta <= 10240 ? "ok" : "**over**"} |`,
    );
  }
  if (others.length > 0) {
    const worst = others.reduce((a, b) => (b.gzip > a.gzip ? b : a));
    const delta = worst.gzip - base.gzip;
    lines.push(
      `| ${others.length} other routes, the largest (${worst.routeId}) | ${worst.files.length} | ${kib(worst.raw)} | ${kib(worst.gzip)} | ${kib(base.gzip)} | ${kib(delta)} | ${delta <= 10240 ? "ok" : "**over**"} |`,
    );
  }
  lines.push(`| baseline / | ${base.files.length} | ${kib(base.raw)} | ${kib(base.gzip)} | | | |`);
  for (const run of r.runtimes) {
    section(
      run.runtime === "pages dev" ? "Under `wrangler pages dev`" : "Under workerd through Miniflare directly (no pages dev proxy)",
      `Median of ${run.rounds} alternating rounds of ${run.secondsPerRound} s (each round's figure in brackets). The ratio is`,
      "the median of the per-round ratios, each from a baseline and a Gatepost measurement taken back to back.",
    );
    table("Request", "req/s", "p50 ms", "p99 ms", "Status codes", "Baseline req/s", "Ratio, req/s (target)");
    lines.push(
      `| baseline GET / | ${run.ssr.baseline.rps} (${run.ssr.baseline.perRound.join(" / ")}) | ${ms(run.ssr.baseline.p50)} | ${ms(run.ssr.baseline.p99)} | ${codes(run.ssr.baseline)} | | |`,
    );
    lines.push(loadRow("GET /", run.ssr.home, run.ssr.baseline).replace(/\|$/, "") + "(≥ 0.9) |");
    lines.push(loadRow("GET /f/contact", run.ssr.contact, run.ssr.baseline).replace(/\|$/, "") + "(≥ 0.9) |");
    lines.push(
      `| baseline POST /submit | ${run.submit.baseline.rps} (${run.submit.baseline.perRound.join(" / ")}) | ${ms(run.submit.baseline.p50)} | ${ms(run.submit.baseline.p99)} | ${codes(run.submit.baseline)} | | |`,
    );
    if (run.submit.counted) {
      lines.push(
        loadRow(
          "reference: baseline POST /submit?counted (plus one rate-limit round trip)",
          run.submit.counted,
          run.submit.baseline,
        ).replace(/\|$/, "") + "(what the 2nd trip costs) |",
      );
    }
    lines.push(
      loadRow("POST /f/contact, accepted, no destination", run.submit.noDestination, run.submit.baseline).replace(/\|$/, "") + "(≥ 0.9) |",
    );
    lines.push(
      loadRow("POST /f/contact, accepted, webhook destination (first delivery in waitUntil)", run.submit.ours, run.submit.baseline).replace(
        /\|$/,
        "",
      ) + "(against /submit?delivered below) |",
    );
    if (run.submit.delivered) {
      lines.push(
        loadRow(
          "reference: baseline POST /submit?delivered (plus one signed delivery and a D1 write after the answer)",
          run.submit.delivered,
          run.submit.baseline,
        ).replace(/\|$/, "") + "|",
      );
      const ratio = pairedRatio(run.submit.ours, run.submit.delivered);
      block(
        `Webhook destination against the delivering reference, req/s: ${x(ratio.median)} (${ratio.perRound.map(x).join(" / ")}) (target ≥ 0.8).`,
      );
    }
  }
  if (r.pageCpu) {
    const c = r.pageCpu;
    section(
      "The app's own time per page view (workerd through Miniflare)",
      "The workerd process's CPU time per GET under load (autocannon, the same connections as above; user + system",
      `from /proc, in ${c.baseline.perRound.length} alternating rounds). On a shared VM it moves less than req/s, which a neighbour's load shifts between rounds.`,
    );
    table("Page", "workerd process CPU ms per view (per round)", "Baseline's CPU ÷ this");
    for (const [name, key] of [
      ["baseline GET /", "baseline"],
      ["GET /", "home"],
      ["GET /f/contact", "contact"],
    ]) {
      const ratio = key === "baseline" ? "" : x(c.baseline.processCpuMsPerView / c[key].processCpuMsPerView);
      lines.push(`| ${name} | ${ms(c[key].processCpuMsPerView)} (${c[key].perRound.join(" / ")}) | ${ratio} |`);
    }
    if (c.baseline.topGroups) {
      block(
        "A sampling profile of each page's isolate under the same load (workerd's inspector at 100 µs): isolate CPU ms per view, and the",
        "biggest self-time groups (package or app module), CPU ms per view and share:",
      );
      for (const [name, key] of [
        ["baseline GET /", "baseline"],
        ["GET /", "home"],
        ["GET /f/contact", "contact"],
      ]) {
        const groups = c[key].topGroups.map((g) => `${g.name} ${g.msPerRequest} (${g.share} %)`).join(", ");
        lines.push(`- ${name}: ${ms(c[key].isolateCpuMsPerView)} ms; ${groups}`);
      }
    }
  }
  if (r.profile) {
    const p = r.profile;
    section(
      "The app's own time per accepted submission (workerd through Miniflare)",
      "Measured under load (autocannon, the same connections as above) and without the provider, two ways:",
      "the workerd process's CPU time per completed post (user + system from /proc, in",
      `${p.ours.processCpuPerRound?.length ?? "?"} alternating rounds; it holds the app's isolate and the local D1, while the stand-in provider and`,
      "the load generator run in other processes), and a sampling profile of the app isolate alone",
      "(workerd's inspector at 100 µs, one more load run per app).",
    );
    table(
      "App",
      "workerd process CPU ms per accepted submission (per round)",
      "Bare action's CPU ÷ this",
      "Two-trip reference's CPU ÷ this",
      "App isolate CPU ms (profile)",
      "req/s while profiled",
    );
    const sides = [
      ["baseline POST /submit (bare action)", p.baseline],
      ["reference: baseline POST /submit?counted", p.counted],
      ["Gatepost POST /f/contact, no destination", p.noDestination],
      ["Gatepost POST /f/contact, webhook destination (incl. the first delivery)", p.ours],
    ];
    for (const [name, side] of sides) {
      if (!side) continue;
      const over = (reference) =>
        reference && side.processCpuMsPerRequest ? (reference.processCpuMsPerRequest / side.processCpuMsPerRequest).toFixed(2) : "–";
      lines.push(
        `| ${name} | ${ms(side.processCpuMsPerRequest)} (${(side.processCpuPerRound ?? []).join(" / ")}) | ${over(p.baseline)} | ${over(p.counted)} | ${ms(side.cpuMsPerRequest)} | ${ms(side.profiledRps)} |`,
      );
    }
    const list = (items) =>
      items
        .slice(0, 4)
        .map((i) => `\`${i.name}\` ${i.msPerRequest} (${i.share} %)`)
        .join(", ");
    block(
      `Gatepost's profile (webhook destination, ${p.ours.count} posts under load), CPU ms per submission and share of the isolate's time:`,
    );
    lines.push(`- biggest self-time groups (package or app module): ${list(p.ours.topGroups)}`);
    lines.push(`- top functions: ${list(p.ours.topFunctions)}`);
    lines.push(`- top functions inside the app's server build (routes, app/lib, entry): ${list(p.ours.topAppFunctions ?? [])}`);
  }
  if (r.outbox) {
    section("Outbox drain (bench/outbox-drain.mjs, called from this run)");
    lines.push(`\`${JSON.stringify(r.outbox)}\``);
  }
  if (r.lighthouse) {
    section(
      "Lighthouse 12.2.3, mobile preset, against `npm run start:offline` (median of each page's runs)",
      "Each page ran once per round, the baseline's first, so every round met the same machine. In brackets per run: Lighthouse's own",
      "CPU benchmark index (higher is a less loaded machine) and the VM's steal during that run.",
    );
    table("Page", "Performance", "Accessibility", "Best practices", "SEO", "Performance per run", "Below 1 in some run");
    for (const p of [...r.lighthouse.results, ...(r.lighthouse.baseline ?? [])]) {
      const m = p.median;
      lines.push(
        `| ${p.name} | ${m.performance} | ${m.accessibility} | ${m["best-practices"]} | ${m.seo} | ${p.runs.map((s) => `${s.performance} (${s.benchmarkIndex ?? "?"}${s.stealPercent === undefined ? "" : `, ${s.stealPercent} %`})`).join(", ")} | ${p.notPerfect.join("; ") || "–"} |`,
      );
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

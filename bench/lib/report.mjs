import { median, round } from "./stats.mjs";

// docs/performance.md, written whole from one run; the run history is data (bench/results/history.jsonl).

const HEADER = (r) => [
  "# Performance",
  "",
  "Written by `npm run bench` (bench/lib/report.mjs) from the run below: the method, the latest results and one verdict per",
  "target, every figure from that one run. Do not edit it by hand. Beside it: the same run's diagnostics without a target",
  "(`bench/results/details.md`: the sampling profile, the outbox drain, memory per upload, what the tests hold), earlier runs (`bench/results/history.jsonl`) and measurements dropped,",
  "with their last figures and why (`bench/results/dropped.md`).",
  "",
  `Run of ${r.date} (finished ${r.finished}), commit ${r.commit}, \`${r.command}\`, Node ${r.host.node}, ${r.host.cores} cores.`,
  `Conditions: load average ${r.host.loadAverage.start.join(" / ")} at the start and ${r.host.loadAverage.end.join(" / ")} at the end; of all CPU time during`,
  `the run, ${r.host.stealPercent} % went to other guests of the host (steal), ${r.host.otherPercent} % to other processes on this machine,`,
  `${r.host.benchPercent} % to the bench (its load generator, servers and browser), and ${r.host.idlePercent} % was left idle. Ratios are what the`,
  "alternating rounds make comparable; absolute figures move with the machine.",
  r.host.pinned
    ? `Cores: after Lighthouse (which has the whole machine), the servers' workerd on ${r.host.pinned.servers}, the load generator and the stand-ins on ${r.host.pinned.bench} (bench/lib/pin.mjs).`
    : "Cores: not pinned (BENCH_PIN=0, one CPU, or no taskset); identical servers can then differ by several per cent (bench/lib/pin.mjs).",
];

const METHOD = (r) => [
  "## Method",
  "",
  "- Apps: Gatepost, and the bare app (bench/baseline): Remix's Cloudflare Workers template with static assets and one action",
  "  (`/submit`: one siteverify call, one D1 insert; `?delivered` adds one signed delivery and one D1 write after its answer;",
  "  `?guarded`, the reference of the accept req/s target, stores in one batch as ADR 012 promises; `?upload` puts the bytes in R2). Both are built from this",
  "  repository's installed packages; a diagnostic third app is the bare app with a bare module for each file of app/routes.",
  "- Runtimes: `wrangler dev` (scripts/worker-dev.mjs, as `npm start` runs it) and workerd through Miniflare, loading the bundle",
  "  `wrangler deploy --dry-run --outdir` writes with the bindings wrangler derives. Every server gets a fresh, migrated D1 and its",
  "  own process group.",
  "- Rounds: every subject runs once per round for the same time, every other round in reverse order",
  `  (${r.opts.rounds} rounds of ${r.opts.load.duration} s, autocannon with ${r.opts.load.connections} connections; page views, accepted posts and the console form take`,
  `  ${r.opts.paired?.rounds ?? r.opts.rounds} rounds of ${r.opts.paired?.load.duration ?? r.opts.load.duration} s, so each pair sits closer in time), after one uncounted warm-up round under the same load (first`,
  "  rounds ran up to 1.5× the CPU of later ones). A figure is the median over the rounds, a ratio the median of per-round ratios.",
  "  Page views, accepted posts (in two groups: the post without a destination with both its references, then the webhook pair),",
  "  the console form's pairs and the scale bench's two servers (an empty and a seeded database) are instead under",
  "  load at the same time in each round, each subject on a server of its own: the core's speed moved by up to ±30 % between",
  "  rounds run in turn, and at once it moves for all alike (bench/lib/rounds.mjs, docs/decisions/104, 107).",
  "  Any status but 200 (pages) or 303 (accepted posts), or any error, fails the measurement.",
  "- CPU per request: the run time of the threads of the workerd that runs the app (/proc/<pid>/task/*/sched; not wrangler's",
  "  proxy) over the load run and the after-response work it left (until that workerd is idle), divided by the requests answered.",
  "- Posts carry a fresh stand-in token each and, for Gatepost, the hidden fields of a fresh page view. Rate limits are moved out",
  "  of the way by settings and, in the bench's copy of wrangler.toml, the rate-limiting binding's limit: every post still counts.",
  "  The Turnstile stand-in and the webhook sink run in a child process, away from the load generator.",
  "- Rerun: `npm run bench` (about 30 minutes); its knobs are listed at the top of bench/run.mjs. `BENCH_ONLY=ssr,accept` and",
  "  `BENCH_RUNTIMES=miniflare` make a partial run that writes only bench/results/latest.*.",
];

const TESTS = [
  "## What the tests hold (each fails when its point breaks)",
  "",
  "| Point | Test |",
  "|---|---|",
  "| Every page's JS ≤ the bare app's + 10 KiB gzip, from the build manifests | tests/e2e/js-budget.test.ts |",
  "| CSP with a per-request nonce and the hardening headers on every HTML response; no CSP violation in Chromium | tests/unit/security-headers.test.ts, tests/workers/security-headers.test.ts, tests/e2e/csp.test.ts |",
  "| axe-core: no violations on /, /f/contact, the thank-you view, /admin/login, a 404 | tests/e2e/a11y.test.ts |",
  "| One D1 round trip before an accepted submission is answered ([ADR 012](decisions/012-provider-first-one-round-trip.md)) | tests/workers/d1-round-trips.test.ts |",
  "| The Lighthouse step retries a run on a slow or busy host and still fails a page that scores below 100 on a fit one | tests/unit/bench-lighthouse.test.ts |",
  "| Settings parsed once per env object, never answering with another env's ([ADR 053](decisions/053-settings-parsed-once-per-env.md)) | tests/unit/settings.test.ts |",
  "| An upload streamed 64 KiB a read where workerd offers readAtLeast, not in its 4 KiB pieces | tests/unit/upload-body.test.ts |",
];

/** A module's data without the runtimes whose measurement failed. */
const okRuntimes = (module, data) => (module.perRuntime ? Object.fromEntries(Object.entries(data).filter(([, d]) => !d.failed)) : data);

/** A failed part of the run, said plainly where its figures would be. */
const failedLine = (what, message) => `**Failed**${what ? ` under ${what}` : ""}: ${message}`;

function moduleTargets(module, data) {
  if (!module.targets || data === undefined) return [];
  try {
    return module.targets(data);
  } catch (error) {
    const reason = data.failed ?? error.message;
    return [{ name: `${module.title}: every target`, asks: "", measured: { failed: reason.slice(0, 80) }, verdict: "not measured" }];
  }
}

function moduleSection(module, data) {
  const lines = [`### ${module.title}`, ""];
  if (data?.failed) return [...lines, failedLine(null, data.failed)];
  if (!module.perRuntime) return [...lines, ...module.render(data)];
  const ok = Object.fromEntries(Object.entries(data).filter(([, d]) => !d.failed));
  if (Object.keys(ok).length > 0) lines.push(...module.render(ok));
  for (const [runtime, d] of Object.entries(data)) if (d.failed) lines.push(failedLine(runtime, d.failed), "");
  return lines;
}

/** How many full runs the Verdicts table's last column takes its median over. */
export const RECENT_RUNS = 5;

/** A history line (summarizeRun) of a full run: no knob that leaves measurements or runtimes out. */
export const isFullRun = (line) => !/\bBENCH_(?:ONLY|RUNTIMES)=/.test(line.command ?? "");

/** The median of a target's figure over the newest RECENT_RUNS full runs, per runtime, and how many held it. */
export function recentMedian(history, moduleName, figure) {
  const runs = history.filter(isFullRun).slice(-RECENT_RUNS);
  const byRuntime = {};
  for (const run of runs) {
    for (const [runtime, figures] of Object.entries(run.figures?.[moduleName] ?? {})) {
      const value = figures?.[figure];
      if (typeof value === "number") (byRuntime[runtime] ??= []).push(value);
    }
  }
  if (Object.keys(byRuntime).length === 0) return null;
  return Object.fromEntries(
    Object.entries(byRuntime).map(([runtime, values]) => [runtime, { median: median(values), runs: values.length }]),
  );
}

const listed = (values) =>
  Object.entries(values)
    .map(([k, v]) => `${k}: ${v ?? "–"}`)
    .join(", ");

/** docs/performance.md for one run: the verdicts and each module's section (diagnostics go to `details`). */
export function renderReport(results, measurements, history = []) {
  const targets = measurements.flatMap((m) => moduleTargets(m, results.data[m.name]).map((t) => ({ ...t, module: m.name })));
  const lines = [
    ...HEADER(results),
    "",
    "## Verdicts",
    "",
    `Each verdict is this run's median; beside it, where a target keeps its figure in the history, the median of the last ${RECENT_RUNS} full runs (bench/results/history.jsonl), for how much a line moves from run to run.`,
    "",
    `| Target | Asks | Measured | Verdict | Last ${RECENT_RUNS} full runs (median) |`,
    "|---|---|---|---|---|",
  ];
  for (const t of targets) {
    const recent = t.figure ? recentMedian(history, t.module, t.figure) : null;
    const beside = recent
      ? Object.entries(recent)
          .map(([runtime, { median: m, runs }]) => `${runtime}: ${round(m)} (${runs} run${runs === 1 ? "" : "s"})`)
          .join(", ")
      : "–";
    lines.push(`| ${t.name} | ${t.asks} | ${listed(t.measured)} | **${t.verdict}** | ${beside} |`);
  }
  lines.push("", "## Results", "");
  const ran = measurements.filter((m) => results.data[m.name] !== undefined);
  for (const m of ran.filter((m) => !m.detail)) lines.push(...moduleSection(m, results.data[m.name]), "");
  lines.push(...METHOD(results), "");
  const details = [
    "# Bench details",
    "",
    `Diagnostics of the run of ${results.date}, commit ${results.commit}, written beside docs/performance.md by bench/lib/report.mjs.`,
    "",
    ...ran.filter((m) => m.detail).flatMap((m) => [...moduleSection(m, results.data[m.name]), ""]),
    ...ran
      .filter((m) => m.renderDetail && !results.data[m.name].failed)
      .flatMap((m) => [...m.renderDetail(okRuntimes(m, results.data[m.name])), ""]),
    ...TESTS,
  ];
  const tidy = (text) => text.join("\n").replace(/\n{3,}/g, "\n\n");
  return { report: tidy(lines), details: tidy(details) };
}

/** The line a run adds to bench/results/history.jsonl: when, where, the verdicts and each module's summary. */
export function summarizeRun(results, measurements) {
  const figures = {};
  for (const m of measurements) {
    const data = results.data[m.name];
    if (!m.summarize || data === undefined) continue;
    if (data.failed) figures[m.name] = { failed: true };
    else if (m.perRuntime) figures[m.name] = m.summarize(Object.fromEntries(Object.entries(data).filter(([, d]) => !d.failed)));
    else figures[m.name] = m.summarize(data);
  }
  return {
    date: results.date,
    commit: results.commit,
    command: results.command,
    host: results.host,
    verdicts: Object.fromEntries(measurements.flatMap((m) => moduleTargets(m, results.data[m.name])).map((t) => [t.name, t.verdict])),
    figures,
  };
}

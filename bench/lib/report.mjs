// docs/performance.md, written whole from one run: the verdicts, the method, each measurement's
// section (its module's render) and what the tests hold. Every figure on the page comes from the run
// it names; the run history is data (bench/results/history.jsonl, one summarizeRun line per run).

const HEADER = (r) => [
  "# Performance",
  "",
  "Written by `npm run bench` (bench/lib/report.mjs) from the run below: the method, the latest results and one verdict per",
  "target, every figure from that one run. Do not edit it by hand; earlier runs are lines of `bench/results/history.jsonl`.",
  "",
  `Run of ${r.date} (finished ${r.finished}), commit ${r.commit}, \`${r.command}\`, Node ${r.host.node}, ${r.host.cores} cores.`,
  `Conditions: load average ${r.host.loadAverage.start.join(" / ")} at the start and ${r.host.loadAverage.end.join(" / ")} at the end; of all CPU time during`,
  `the run, ${r.host.stealPercent} % went to other guests of the host (steal), ${r.host.otherPercent} % to other processes on this machine,`,
  `${r.host.benchPercent} % to the bench (its load generator, servers and browser), and ${r.host.idlePercent} % was left idle. Ratios are what the`,
  "alternating rounds make comparable; absolute figures move with the machine.",
];

const METHOD = (r) => [
  "## Method",
  "",
  "- Apps: Gatepost, and the bare app (bench/baseline): Remix's Cloudflare Workers template (its Worker entry, root and index",
  "  route) with static assets, plus one action that makes one siteverify call and one D1 insert (`/submit`); `/submit?delivered`",
  "  also makes, after its answer, one delivery signed as Standard Webhooks sign it and one D1 write of its outcome;",
  "  `/submit?guarded` (a diagnostic) stores as ADR 012 promises, in one batch: the client's minute and day windows counted, the",
  "  insert only within them and for a new key (`_sid`), the key's holder read. Both are",
  "  built from this repository's installed packages. A diagnostic third app is the bare app with Gatepost's route table (a bare",
  "  module under the name of each file of app/routes), so what a table that size costs stays visible.",
  "- Runtimes: each Worker runs under `wrangler dev` (scripts/worker-dev.mjs, as `npm start` runs it) and in workerd through",
  "  Miniflare, loading the bundle `wrangler deploy --dry-run --outdir` writes with the bindings wrangler derives from its config",
  "  (static assets, D1, R2, send_email, rate limits). Every server gets a fresh, migrated D1 and its own process group.",
  "- Rounds: in each runtime every subject runs once per round for the same time, every other round in reverse order",
  `  (${r.opts.rounds} rounds of ${r.opts.load.duration} s, autocannon with ${r.opts.load.connections} connections; page views, accepted posts and the console form take`,
  `  ${r.opts.paired?.rounds ?? r.opts.rounds} rounds of ${r.opts.paired?.load.duration ?? r.opts.load.duration} s, since their 0.9 and 0.95 targets sit within one 4-s round's noise on this`,
  "  machine: shorter rounds put each pair closer together in time), after one uncounted warm-up round under the same load",
  "  (50 sequential requests left V8 still compiling: first rounds ran up to 1.5× the CPU of later ones); a figure is the median",
  "  over the rounds and a ratio the median of per-round ratios. Any status but 200 (pages) or 303 (accepted posts), or any",
  "  error, fails the measurement.",
  "- CPU per request: the CPU time (/proc) of the workerd that runs the app (under `wrangler dev`, not the proxy in front of it)",
  "  over the load run and the after-response work it left (until that workerd is idle), divided by the requests answered.",
  "- A console form: the contact form's definition, as the admin API shows it, put and published under another id through the",
  "  admin API (`PUT /admin/api/forms/:id`, `POST …/publish`, with `ADMIN_API_TOKEN`); its page views and accepts alternate with the",
  "  code form's on the same server, the form catalog warmed first. Rate limits are out of the way for it and for /f/apply alike.",
  "- Uploads: a 1 MiB PDF made by the bench (a `%PDF-` header, comment lines of filler) posted as multipart to `/f/apply` and to the",
  "  bare app's `/submit?upload` (verify, put the bytes in its R2 binding, insert one row). Peak memory per post: one post at a time on",
  "  a fresh server per app, the workerd's VmHWM reset with `clear_refs` before each post (its section says exactly how).",
  "- Posts carry a fresh stand-in token each (the stand-in answers at once) and, for Gatepost, the hidden fields of a fresh page",
  "  view (a new submission id and a stamp signed for it). Rate limits are moved out of the way by settings (D1 limits at 10⁹,",
  "  minimum fill time 0) and, in the bench's copy of wrangler.toml, the rate-limiting binding's limit: every post still counts.",
  "  The Turnstile stand-in and the webhook sink run in a child process, away from the load generator's event loop.",
  "- Rerun: `npm run bench` (about 20–25 minutes). Knobs: `BENCH_DURATION` (12 s per subject, split over `BENCH_ROUNDS`, 3), `BENCH_PAIRED_ROUNDS` (10) and `BENCH_PAIRED_SECONDS` (2),",
  "  `BENCH_CONNECTIONS` (10), `LH_RUNS` (3), `LH_MIN_INDEX` (1500), `LH_MAX_OTHER` (25), `LH_TRIAL_BLOCK_MS` (250), `BENCH_OUTBOX_COUNT` (200),",
  "  `BENCH_SKIP_BUILD=1`; `BENCH_ONLY=ssr,accept` and",
  "  `BENCH_RUNTIMES=miniflare` make a partial run that writes only bench/results/latest.*. Adding a measurement is adding a module",
  "  to bench/measure/ (the contract is at the top of bench/run.mjs). `node bench/profile-pages.mjs` profiles pages on its own.",
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

const HISTORY = [
  "## Dropped, with its last figures",
  "",
  "- Accept latency with 30 ms added to every D1 round trip, Gatepost at be7e4d1 (a rate-limit trip, then the store) against",
  "  one batch: last measured 2026-11-24T04:27 (commit 9ffe205, Miniflare, 3 rounds of 4 s): p50 86 ms / p99 122 ms (113.8 req/s)",
  "  against p50 60 ms / p99 89 ms (161.3 req/s). Dropped because tests/workers/d1-round-trips.test.ts holds the one trip by",
  "  counting it, so the comparison only turned that count into milliseconds (about one added delay) while it rebuilt an old",
  "  commit every run (minutes); and be7e4d1 is a Pages app, which the one-Worker bench could only run through the Pages shim",
  "  the move removed. Its `/submit?counted` reference (what a second trip costs) went with it.",
];

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

/** The whole of docs/performance.md for `results` (run.mjs) and the measurement modules that ran. */
export function renderReport(results, measurements) {
  const targets = measurements.flatMap((m) => moduleTargets(m, results.data[m.name]));
  const lines = [...HEADER(results), "", "## Verdicts", "", "| Target | Asks | Measured | Verdict |", "|---|---|---|---|"];
  for (const t of targets) {
    const measured = Object.entries(t.measured)
      .map(([k, v]) => `${k}: ${v ?? "–"}`)
      .join(", ");
    lines.push(`| ${t.name} | ${t.asks} | ${measured} | **${t.verdict}** |`);
  }
  lines.push("", "## Results", "");
  for (const m of measurements) if (results.data[m.name] !== undefined) lines.push(...moduleSection(m, results.data[m.name]), "");
  lines.push(...METHOD(results), "", ...TESTS, "", ...HISTORY, "");
  return lines.join("\n").replace(/\n{3,}/g, "\n\n");
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

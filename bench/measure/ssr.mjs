// Page views (SSR) in one runtime: Gatepost's `/` and `/f/contact` against the bare app's `/`, in req/s
// and in the CPU its workerd spends per view, measured in the same load runs; the bare app with
// Gatepost's route table beside them shows what a route table that size costs by itself.
import { loadGet, loadTrial, warmUp } from "../lib/load.mjs";
import { alternateLoads } from "../lib/rounds.mjs";
import { pairedRatio } from "../lib/stats.mjs";
import { atLeast, byRuntime } from "../lib/targets.mjs";
import { loadTable } from "../lib/tables.mjs";

export const name = "ssr";
export const title = "Page views (SSR)";
export const order = 30;
export const perRuntime = true;

/** subject → [app, settings variant, path, label, server instance]. */
const SUBJECTS = {
  baseline: ["baseline", "baseline", "/", "bare app GET /"],
  routes: ["routes", "baseline", "/", "diagnostic: bare app with Gatepost's routes, GET /"],
  home: ["gatepost", "gatepost", "/", "Gatepost GET /"],
  // A server of its own: the subjects are under load at once, and a server's CPU is counted per server.
  contact: ["gatepost", "gatepost", "/f/contact", "Gatepost GET /f/contact", "contact"],
};

export async function run({ servers, opts, between, log }) {
  const trials = {};
  for (const [subject, [app, variant, pathname, , instance]] of Object.entries(SUBJECTS)) {
    const server = await servers.get(app, variant, instance);
    await warmUp(`${server.url}${pathname}`, {}, 50);
    trials[subject] = loadTrial(server, () => loadGet(`${server.url}${pathname}`, opts.paired.load));
  }
  const expect = Object.fromEntries(Object.keys(SUBJECTS).map((s) => [s, "200"]));
  // Every subject under load at once in each round (docs/decisions/104): in turn, the control row (the
  // bare app with Gatepost's route table) moved from run to run with a standard deviation of 0.05–0.07
  // in its CPU ratio; at once, 0.005.
  const loads = await alternateLoads(trials, {
    together: true,
    rounds: opts.paired.rounds,
    between,
    expect,
    log,
    label: `${servers.runtime} ssr`,
  });
  const vs = (subject, key) => pairedRatio(loads[subject], loads.baseline, key).median;
  return {
    rounds: opts.paired.rounds,
    secondsPerRound: opts.paired.load.duration,
    loads,
    ratios: {
      homeRps: vs("home", "perRound"),
      contactRps: vs("contact", "perRound"),
      homeCpu: vs("home", "cpuPerRound"),
      contactCpu: vs("contact", "cpuPerRound"),
      routesRps: vs("routes", "perRound"),
      routesCpu: vs("routes", "cpuPerRound"),
    },
  };
}

export function targets(data) {
  const ratio = (key) => byRuntime(data, (d) => d.ratios[key]);
  return [
    atLeast("SSR GET /, req/s ÷ the bare app's GET /", 0.9, ratio("homeRps")),
    atLeast("SSR GET /f/contact, req/s ÷ the bare app's GET /", 0.9, ratio("contactRps")),
    atLeast("SSR GET /, workerd CPU per view: the bare app's ÷ Gatepost's", 0.9, ratio("homeCpu")),
    atLeast("SSR GET /f/contact, workerd CPU per view: the bare app's ÷ Gatepost's", 0.9, ratio("contactCpu")),
  ];
}

export function render(data) {
  return Object.entries(data).flatMap(([runtime, d]) => [
    `**${runtime}** (${d.rounds} rounds of ${d.secondsPerRound} s; every subject on a server of its own and all under load at once; ratios against the bare app's GET /, paired round by round):`,
    "",
    ...loadTable(
      Object.entries(SUBJECTS).map(([subject, [, , , label]]) => ({
        label,
        load: d.loads[subject],
        against: subject === "baseline" ? null : d.loads.baseline,
      })),
    ),
    "",
  ]);
}

export function summarize(data) {
  return byRuntime(data, (d) => ({ ...d.ratios, cpuMs: Object.fromEntries(Object.entries(d.loads).map(([s, l]) => [s, l.cpuMs])) }));
}

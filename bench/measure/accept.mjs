// Accepted posts in one runtime: Gatepost's /f/contact without a destination against the bare action (/submit) and
// its guarded variant (ADR 012's D1 promises), and with its webhook against /submit?delivered: req/s and CPU per post.
// Each subject on a server of its own, a group's under load at once every round (ADR 104, 107).
import { loadPost, loadTrial, warmUp } from "../lib/load.mjs";
import { alternateLoads } from "../lib/rounds.mjs";
import { baselineBodies, gatepostBodies } from "../lib/submit.mjs";
import { pairedRatio } from "../lib/stats.mjs";
import { loadTable } from "../lib/tables.mjs";
import { atLeast, byRuntime } from "../lib/targets.mjs";

export const name = "accept";
export const title = "Accepted posts";
export const order = 40;
export const perRuntime = true;

/** subject → [app, settings variant, path, label, server instance]: no two subjects share a server (an app and variant is one). */
const SUBJECTS = {
  bare: ["baseline", "baseline", "/submit", "bare app POST /submit (verify, insert)", ""],
  guarded: [
    "baseline",
    "baseline",
    "/submit?guarded",
    "reference POST /submit?guarded (verify; count limits, key-guarded insert, key holder in one batch)",
    "guarded",
  ],
  noDestination: ["gatepost", "noDestination", "/f/contact", "Gatepost POST /f/contact, no destination", ""],
  delivered: [
    "baseline",
    "baseline",
    "/submit?delivered",
    "reference POST /submit?delivered (+ one signed delivery, one D1 write)",
    "delivered",
  ],
  webhook: ["gatepost", "gatepost", "/f/contact", "Gatepost POST /f/contact, webhook destination (first delivery in waitUntil)", ""],
};
/** What each subject is compared against in the table. */
const AGAINST = { guarded: "bare", noDestination: "bare", delivered: "bare", webhook: "delivered" };
/** The groups under load at once: no destination with both references, then the webhook pair. */
const GROUPS = [
  ["bare", "guarded", "noDestination"],
  ["delivered", "webhook"],
];

export async function run({ servers, settings, opts, between, log }) {
  const trials = {};
  for (const [subject, [app, variant, pathname, , instance]] of Object.entries(SUBJECTS)) {
    const server = await servers.get(app, variant, instance);
    const url = `${server.url}${pathname}`;
    const makeBody =
      app === "gatepost"
        ? await gatepostBodies(url, "contact", { signingSecret: settings[variant].FORM_SIGNING_SECRET })
        : baselineBodies(url, { keyed: subject === "guarded" });
    const headers = { origin: server.url };
    await warmUp(url, () => ({
      method: "POST",
      body: makeBody(),
      headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
    }));
    // Fresh proxy connections before each run: a group's servers wait through the other group's rounds.
    trials[subject] = loadTrial(server, () => loadPost(url, makeBody, { ...opts.paired.load, headers }), {
      freshen: opts.paired.load.connections,
    });
  }
  const expect = Object.fromEntries(Object.keys(SUBJECTS).map((s) => [s, "303"]));
  const loads = {};
  for (const group of GROUPS) {
    const label = `${servers.runtime} accept ${group.join("+")}`;
    const groupTrials = Object.fromEntries(group.map((subject) => [subject, trials[subject]]));
    Object.assign(loads, await alternateLoads(groupTrials, { together: true, rounds: opts.paired.rounds, between, expect, log, label }));
  }
  return {
    rounds: opts.paired.rounds,
    secondsPerRound: opts.paired.load.duration,
    together: true,
    loads,
    ratios: {
      noDestinationRps: pairedRatio(loads.noDestination, loads.bare).median,
      noDestinationCpu: pairedRatio(loads.noDestination, loads.bare, "cpuPerRound").median,
      guardedRps: pairedRatio(loads.guarded, loads.bare).median,
      noDestinationVsGuardedRps: pairedRatio(loads.noDestination, loads.guarded).median,
      noDestinationVsGuardedCpu: pairedRatio(loads.noDestination, loads.guarded, "cpuPerRound").median,
      webhookRps: pairedRatio(loads.webhook, loads.delivered).median,
      webhookCpu: pairedRatio(loads.webhook, loads.delivered, "cpuPerRound").median,
    },
  };
}

export function targets(data) {
  const ratio = (key) => byRuntime(data, (d) => d.ratios[key]);
  return [
    // Issue 36: req/s against the guarded action, CPU against the bare one.
    atLeast(
      "Accept, no destination, req/s ÷ the guarded reference (the bare action with the limits and key guard)",
      0.9,
      ratio("noDestinationVsGuardedRps"),
      { figure: "noDestinationVsGuardedRps" },
    ),
    atLeast("Accept, no destination, workerd CPU per accepted post: the bare action's ÷ Gatepost's", 0.8, ratio("noDestinationCpu"), {
      figure: "noDestinationCpu",
    }),
    atLeast("Accept, webhook destination, req/s ÷ the reference that also delivers", 0.8, ratio("webhookRps"), { figure: "webhookRps" }),
  ];
}

export function render(data) {
  return Object.entries(data).flatMap(([runtime, d]) => [
    `**${runtime}** (${d.rounds} rounds of ${d.secondsPerRound} s; every subject on a server of its own, ${GROUPS.map((g) => g.join(", ")).join(" and then ")} under load at once; each ratio against the row its label names, paired round by round):`,
    "",
    ...loadTable([
      ...Object.entries(SUBJECTS).map(([subject, [, , , label]]) => ({
        label: AGAINST[subject] ? `${label}, vs ${AGAINST[subject]}` : label,
        load: d.loads[subject],
        against: AGAINST[subject] ? d.loads[AGAINST[subject]] : null,
      })),
      { label: `${SUBJECTS.noDestination[3]}, vs guarded`, load: d.loads.noDestination, against: d.loads.guarded },
    ]),
    "",
  ]);
}

export function summarize(data) {
  return byRuntime(data, (d) => ({ ...d.ratios, cpuMs: Object.fromEntries(Object.entries(d.loads).map(([s, l]) => [s, l.cpuMs])) }));
}

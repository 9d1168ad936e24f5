// Where the time goes (a diagnostic, no target): a sampling profile of the app's isolate through
// workerd's inspector (lib/profile.mjs) under load in Miniflare, for a page view and an accepted post
// of Gatepost and of the bare app, in alternating rounds like every other figure, grouped by package
// or app module and by function; per subject the medians over the rounds.
import { loadGet, loadPost, warmUp } from "../lib/load.mjs";
import { profileRequests } from "../lib/profile.mjs";
import { alternateRounds, checkStatuses } from "../lib/rounds.mjs";
import { startServer } from "../lib/servers.mjs";
import { median, round } from "../lib/stats.mjs";
import { baselineBodies, gatepostBodies } from "../lib/submit.mjs";

export const name = "profile";
export const title = "Where the time goes (a sampling profile in Miniflare)";
export const order = 60;
/** A diagnostic with no target: its section goes to bench/results/details.md. */
export const detail = true;

/** subject → [app, settings variant, method, path, label]. */
const SUBJECTS = {
  basePage: ["baseline", "baseline", "GET", "/", "bare app GET /"],
  contactPage: ["gatepost", "gatepost", "GET", "/f/contact", "Gatepost GET /f/contact"],
  basePost: ["baseline", "baseline", "POST", "/submit", "bare app POST /submit"],
  contactPost: ["gatepost", "noDestination", "POST", "/f/contact", "Gatepost POST /f/contact, no destination"],
};

/** One profiled load run of `server` at `pathname`: the isolate's CPU per request and where it went. */
async function profileTrial(server, subject, [app, variant, method, pathname], { settings, opts }) {
  const url = `${server.url}${pathname}`;
  const headers = { origin: server.url };
  let runLoad = () => loadGet(url, opts.load);
  if (method === "POST") {
    const makeBody =
      app === "gatepost"
        ? await gatepostBodies(url, "contact", { signingSecret: settings[variant].FORM_SIGNING_SECRET })
        : baselineBodies(url);
    await warmUp(
      url,
      () => ({ method, body: makeBody(), headers: { ...headers, "content-type": "application/x-www-form-urlencoded" } }),
      50,
    );
    runLoad = () => loadPost(url, makeBody, { ...opts.load, headers });
  } else {
    await warmUp(url, {}, 50);
  }
  return async () => {
    let load = null;
    const profile = await profileRequests({
      inspectorPort: server.inspectorPort,
      bundleFile: server.bundleFile,
      work: async () => {
        load = await runLoad();
        checkStatuses(`profile ${subject}`, load, method === "POST" ? "303" : "200");
        return load.requests;
      },
    });
    return { ...profile, rps: load.rps };
  };
}

/** The rounds of one subject as one profile: median CPU, median ms per group, the median round's functions. */
function combine(rounds) {
  const cpu = median(rounds.map((r) => r.cpuMsPerRequest));
  const names = new Set(rounds.flatMap((r) => r.topGroups.map((g) => g.name)));
  const groups = [...names]
    .map((group) => ({
      name: group,
      msPerRequest: round(median(rounds.map((r) => r.topGroups.find((g) => g.name === group)?.msPerRequest ?? 0)), 3),
    }))
    .sort((a, b) => b.msPerRequest - a.msPerRequest)
    .map((g) => ({ ...g, share: round((g.msPerRequest / cpu) * 100, 1) }));
  const middle = rounds.find((r) => r.cpuMsPerRequest === cpu) ?? rounds[0];
  return {
    cpuMsPerRequest: cpu,
    perRound: rounds.map((r) => r.cpuMsPerRequest),
    requests: rounds.reduce((n, r) => n + r.count, 0),
    rps: median(rounds.map((r) => r.rps)),
    topGroups: groups,
    topAppFunctions: middle.topAppFunctions,
    topFunctions: middle.topFunctions,
  };
}

export async function run({ apps, settings, opts, between, log }) {
  const servers = [];
  try {
    const trials = {};
    for (const [subject, spec] of Object.entries(SUBJECTS)) {
      const [app, variant] = spec;
      const server = await startServer("miniflare", apps[app], { bindings: settings[variant], name: `profile-${subject}`, inspect: true });
      servers.push(server);
      trials[subject] = await profileTrial(server, subject, spec, { settings, opts });
    }
    const rounds = await alternateRounds(trials, { rounds: opts.rounds, warmUpRounds: 1, between, log, label: "profile" });
    return Object.fromEntries(Object.entries(rounds).map(([subject, list]) => [subject, combine(list)]));
  } finally {
    for (const server of servers) await server.stop();
  }
}

/** Gatepost's isolate CPU per request minus the bare app's, by group, largest differences first. */
function difference(ours, bare, n = 6) {
  const ms = new Map(bare.topGroups.map((g) => [g.name, -g.msPerRequest]));
  for (const g of ours.topGroups) ms.set(g.name, (ms.get(g.name) ?? 0) + g.msPerRequest);
  return [...ms]
    .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]))
    .slice(0, n)
    .map(([group, d]) => `\`${group}\` ${d >= 0 ? "+" : ""}${d.toFixed(3)}`)
    .join(", ");
}

export function render(data) {
  const top = (items, n) =>
    items
      .slice(0, n)
      .map((i) => `\`${i.name}\` ${i.msPerRequest} (${i.share} %)`)
      .join(", ");
  const lines = [
    "Isolate CPU per request under load (workerd's inspector, 100 µs sampling, the profiler's own cost included; median of the",
    "alternating rounds, each round in brackets) and the biggest self-time groups (package or app module; `build/server/index.js`",
    "is the app's own code: Gatepost's routes and app/lib, the bare app's action) in ms per request and share. V8 samples on the",
    "wall clock: on a loaded machine, time the isolate's thread waited for a core is counted to the function it waited in, so",
    "these figures are only as good as the machine was quiet; the process CPU figures above are the measure.",
    "",
  ];
  for (const [subject, [, , , , label]] of Object.entries(SUBJECTS)) {
    const p = data[subject];
    lines.push(`- ${label}: ${p.cpuMsPerRequest} ms (${p.perRound.join(" / ")}), ${p.rps} req/s; groups: ${top(p.topGroups, 5)}`);
    if (p.topAppFunctions.length > 0) lines.push(`  - in the app's server build (median round): ${top(p.topAppFunctions, 5)}`);
  }
  lines.push(
    `- Gatepost's post − the bare action's, by group (ms per request): ${difference(data.contactPost, data.basePost)}`,
    `- Gatepost's /f/contact − the bare app's /, by group: ${difference(data.contactPage, data.basePage)}`,
  );
  return lines;
}

export function summarize(data) {
  return Object.fromEntries(Object.entries(data).map(([subject, p]) => [subject, p.cpuMsPerRequest]));
}

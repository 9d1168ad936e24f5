// Where the time goes (a diagnostic, no target): a sampling profile of the app's isolate through
// workerd's inspector (lib/profile.mjs) under load in Miniflare, for a page view and an accepted post
// of Gatepost and of the bare app, grouped by package or app module and by function.
import { loadGet, loadPost, warmUp } from "../lib/load.mjs";
import { profileRequests } from "../lib/profile.mjs";
import { checkStatuses } from "../lib/rounds.mjs";
import { startServer } from "../lib/servers.mjs";
import { baselineBodies, gatepostBodies } from "../lib/submit.mjs";

export const name = "profile";
export const title = "Where the time goes (a sampling profile in Miniflare)";
export const order = 60;
const SECONDS = 5;

/** subject → [app, settings variant, method, path, label]. */
const SUBJECTS = {
  basePage: ["baseline", "baseline", "GET", "/", "bare app GET /"],
  contactPage: ["gatepost", "gatepost", "GET", "/f/contact", "Gatepost GET /f/contact"],
  basePost: ["baseline", "baseline", "POST", "/submit", "bare app POST /submit"],
  contactPost: ["gatepost", "noDestination", "POST", "/f/contact", "Gatepost POST /f/contact, no destination"],
};

export async function run({ apps, settings, opts, between, log }) {
  const results = {};
  for (const [subject, [app, variant, method, pathname]] of Object.entries(SUBJECTS)) {
    log(`profiling ${subject}`);
    const server = await startServer("miniflare", apps[app], { bindings: settings[variant], name: `profile-${subject}`, inspect: true });
    try {
      const url = `${server.url}${pathname}`;
      const headers = { origin: server.url };
      let runLoad = () => loadGet(url, { duration: SECONDS, connections: opts.load.connections });
      if (method === "POST") {
        const makeBody =
          app === "gatepost" ? await gatepostBodies(url, "contact", { signingSecret: settings[variant].FORM_SIGNING_SECRET }) : baselineBodies(url);
        await warmUp(url, () => ({ method, body: makeBody(), headers: { ...headers, "content-type": "application/x-www-form-urlencoded" } }), 50);
        runLoad = () => loadPost(url, makeBody, { duration: SECONDS, connections: opts.load.connections, headers });
      } else {
        await warmUp(url, {}, 50);
      }
      await between();
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
      results[subject] = { ...profile, rps: load.rps };
    } finally {
      await server.stop();
    }
  }
  return results;
}

export function render(data) {
  const top = (items, n) =>
    items
      .slice(0, n)
      .map((i) => `\`${i.name}\` ${i.msPerRequest} (${i.share} %)`)
      .join(", ");
  const lines = [];
  for (const [subject, [, , , , label]] of Object.entries(SUBJECTS)) {
    const p = data[subject];
    lines.push(`- ${label}: ${p.cpuMsPerRequest} ms isolate CPU per request (${p.count} requests, ${p.rps} req/s); groups: ${top(p.topGroups, 5)}`);
    if (p.topAppFunctions.length > 0) lines.push(`  - in the app's server build: ${top(p.topAppFunctions, 5)}`);
  }
  return lines;
}

export function summarize(data) {
  return Object.fromEntries(Object.entries(data).map(([subject, p]) => [subject, p.cpuMsPerRequest]));
}

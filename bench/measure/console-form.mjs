// A form made in the console beside the same form in code, in one runtime: a console form with the
// contact form's definition is made and published through the admin API (PUT /admin/api/forms/:id,
// then POST …/publish, with ADMIN_API_TOKEN), then page views and accepted posts (no destination) of
// both, each form on a Gatepost server of its own and the pair under load at once in each round
// (docs/decisions/104). The form catalog is warmed first, so a page view of either reads no D1
// (docs/decisions/045-form-catalog-isolate-cache.md).
import { loadGet, loadPost, loadTrial, warmUp } from "../lib/load.mjs";
import { alternateLoads } from "../lib/rounds.mjs";
import { pairedRatio } from "../lib/stats.mjs";
import { gatepostBodies } from "../lib/submit.mjs";
import { loadTable } from "../lib/tables.mjs";
import { atLeast, byRuntime } from "../lib/targets.mjs";

export const name = "console";
export const title = "A console form beside the code form";
export const order = 45;
export const perRuntime = true;

/** The console form's id: at most 32 characters, Turnstile's cap on an action. */
export const CONSOLE_FORM = "contact-console";
const VARIANT = "noDestination";

/** subject → [method, form id, label, server]: the code form's server, or the console form's own. */
const SUBJECTS = {
  codePage: ["GET", "contact", "Gatepost GET /f/contact (code form)", "code"],
  consolePage: ["GET", CONSOLE_FORM, `Gatepost GET /f/${CONSOLE_FORM} (console form)`, "console"],
  codePost: ["POST", "contact", "Gatepost POST /f/contact, no destination", "code"],
  consolePost: ["POST", CONSOLE_FORM, `Gatepost POST /f/${CONSOLE_FORM}, no destination`, "console"],
};
const AGAINST = { consolePage: "codePage", consolePost: "codePost" };

async function adminApi(server, token, method, pathname, body) {
  const res = await fetch(`${server.url}/admin/api/forms/${pathname}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new Error(`${method} /admin/api/forms/${pathname}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/**
 * Makes and publishes the console form (once per server) with the code form's definition as the
 * admin API shows it, under the console form's id. Resolves to its published version.
 */
export async function publishConsoleForm(server, token) {
  const code = await adminApi(server, token, "GET", "contact");
  const existing = await fetch(`${server.url}/admin/api/forms/${CONSOLE_FORM}`, { headers: { authorization: `Bearer ${token}` } });
  const current = existing.ok ? await existing.json() : null;
  if (current?.version) return current.version;
  await adminApi(server, token, "PUT", CONSOLE_FORM, { ...code.published, id: CONSOLE_FORM });
  return (await adminApi(server, token, "POST", `${CONSOLE_FORM}/publish`)).version;
}

export async function run({ servers, settings, opts, between, log }) {
  const byName = { code: await servers.get("gatepost", VARIANT), console: await servers.get("gatepost", VARIANT, "console") };
  const version = await publishConsoleForm(byName.console, settings[VARIANT].ADMIN_API_TOKEN);
  const trials = {};
  for (const [subject, [method, formId, , serverName]] of Object.entries(SUBJECTS)) {
    const server = byName[serverName];
    const headers = { origin: server.url };
    const url = `${server.url}/f/${formId}`;
    if (method === "GET") {
      // Warms the isolate's form catalog too: from here a page view of either form reads no D1.
      await warmUp(url, {}, 50);
      trials[subject] = loadTrial(server, () => loadGet(url, opts.paired.load));
      continue;
    }
    const makeBody = await gatepostBodies(url, formId, { signingSecret: settings[VARIANT].FORM_SIGNING_SECRET });
    await warmUp(url, () => ({ method, body: makeBody(), headers: { ...headers, "content-type": "application/x-www-form-urlencoded" } }));
    trials[subject] = loadTrial(server, () => loadPost(url, makeBody, { ...opts.paired.load, headers }));
  }
  const expect = Object.fromEntries(Object.entries(SUBJECTS).map(([s, [method]]) => [s, method === "GET" ? "200" : "303"]));
  // Each pair under load at once, on its two servers: in turn, the console form's page view measured 0.99
  // of the code form's CPU per view and 0.92 of its req/s in one run (docs/decisions/104).
  const loads = {};
  for (const [consoleSubject, codeSubject] of Object.entries(AGAINST)) {
    const pair = { [codeSubject]: trials[codeSubject], [consoleSubject]: trials[consoleSubject] };
    const label = `${servers.runtime} console ${SUBJECTS[consoleSubject][0]}`;
    Object.assign(loads, await alternateLoads(pair, { together: true, rounds: opts.paired.rounds, between, expect, log, label }));
  }
  return {
    rounds: opts.paired.rounds,
    secondsPerRound: opts.paired.load.duration,
    version,
    loads,
    ratios: {
      pageRps: pairedRatio(loads.consolePage, loads.codePage).median,
      postRps: pairedRatio(loads.consolePost, loads.codePost).median,
      pageCpu: pairedRatio(loads.consolePage, loads.codePage, "cpuPerRound").median,
      postCpu: pairedRatio(loads.consolePost, loads.codePost, "cpuPerRound").median,
    },
  };
}

export function targets(data) {
  const ratio = (key) => byRuntime(data, (d) => d.ratios[key]);
  return [
    atLeast(`Console form page view GET /f/${CONSOLE_FORM}, req/s ÷ the code form's GET /f/contact`, 0.95, ratio("pageRps")),
    atLeast(`Console form accept, no destination, req/s ÷ the code form's POST /f/contact`, 0.95, ratio("postRps")),
  ];
}

export function render(data) {
  return Object.entries(data).flatMap(([runtime, d]) => [
    `**${runtime}** (console form version ${d.version}, the contact form's fields, made through the admin API; ${d.rounds} rounds of ${d.secondsPerRound} s; each form on a Gatepost server of its own, a pair under load at once; the catalog warmed first; each console row against the code form's row above it, paired round by round):`,
    "",
    ...loadTable(
      Object.entries(SUBJECTS).map(([subject, [, , label]]) => ({
        label,
        load: d.loads[subject],
        against: AGAINST[subject] ? d.loads[AGAINST[subject]] : null,
      })),
    ),
    "",
  ]);
}

export function summarize(data) {
  return byRuntime(data, (d) => ({ ...d.ratios, cpuMs: Object.fromEntries(Object.entries(d.loads).map(([s, l]) => [s, l.cpuMs])) }));
}

// A form made in the console beside the same form in code, in one runtime: a console form with the
// contact form's definition is made and published through the admin API (PUT /admin/api/forms/:id,
// then POST …/publish, with ADMIN_API_TOKEN), then page views and accepted posts (no destination) of
// both, on the same Gatepost server, in alternating rounds. The form catalog is warmed first, so a
// page view of either reads no D1 (docs/decisions/045-form-catalog-isolate-cache.md).
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

/** subject → [method, form id, label]. */
const SUBJECTS = {
  codePage: ["GET", "contact", "Gatepost GET /f/contact (code form)"],
  consolePage: ["GET", CONSOLE_FORM, `Gatepost GET /f/${CONSOLE_FORM} (console form)`],
  codePost: ["POST", "contact", "Gatepost POST /f/contact, no destination"],
  consolePost: ["POST", CONSOLE_FORM, `Gatepost POST /f/${CONSOLE_FORM}, no destination`],
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
  const server = await servers.get("gatepost", VARIANT);
  const version = await publishConsoleForm(server, settings[VARIANT].ADMIN_API_TOKEN);
  const headers = { origin: server.url };
  const trials = {};
  for (const [subject, [method, formId]] of Object.entries(SUBJECTS)) {
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
  const loads = await alternateLoads(trials, { rounds: opts.paired.rounds, between, expect, log, label: `${servers.runtime} console` });
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
    `**${runtime}** (console form version ${d.version}, the contact form's fields, made through the admin API; ${d.rounds} rounds of ${d.secondsPerRound} s on one Gatepost server; the catalog warmed first; each console row against the code form's row above it, paired round by round):`,
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

// `npm start`: build, migrate local D1, and serve Gatepost with embedded defaults any environment variable
// overrides (`--offline`: with the Turnstile stand-in). Tools' output goes to a log file; one block says where all is.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadForms } from "./read-forms.mjs";
import { localSettings } from "./local-settings.mjs";
import { applyLocalMigrations, startWorkerDev, writeQueueConfig } from "./worker-dev.mjs";

const offline = process.argv.includes("--offline");
const port = Number(process.env.PORT || 8788);
const host = process.env.HOST || "localhost";
const LOG_FILE = fileURLToPath(new URL("../.wrangler/logs/npm-start.log", import.meta.url));
/** The sink's port: SINK_PORT, else the one after the site's, so destinations pointed at it keep working across restarts. */
const sinkPort = Number(process.env.SINK_PORT || port + 1);
/** What the sink keeps across restarts (the secrets the console made), beside the local D1 that holds them. */
const SINK_STATE_FILE = fileURLToPath(new URL("../.wrangler/state/local-sink.json", import.meta.url));

/** How often the Worker's cron runs locally (deployed: every minute), so retries need no request. */
const TICK_MS = 15_000;
let localSink = null;

const cleanups = [];
async function shutdown(code = 0) {
  for (const fn of cleanups.reverse()) await fn().catch(() => {});
  process.exit(code);
}
process.on("SIGINT", () => shutdown(0));
process.on("SIGTERM", () => shutdown(0));
process.on("SIGHUP", () => shutdown(0));

function toLog(text) {
  appendFileSync(LOG_FILE, text);
}
async function fail(step, error) {
  console.error(`\n✖ ${step} failed: ${String(error?.message ?? error).split("\n")[0]}\n  Full output: ${LOG_FILE}`);
  await shutdown(1);
}

mkdirSync(new URL("../.wrangler/logs/", import.meta.url), { recursive: true });
writeFileSync(LOG_FILE, `npm start ${new Date().toISOString()}\n`);

if (!process.env.SKIP_BUILD) {
  process.stdout.write("Building… ");
  const build = spawnSync(process.execPath, ["node_modules/@remix-run/dev/dist/cli.js", "vite:build"], { encoding: "utf8" });
  toLog(`${build.stdout}${build.stderr}`);
  if (build.status !== 0) await fail("The build", `exit code ${build.status}`);
  console.log("done.");
}
// ADR 070.
const config = process.env.DELIVERY_QUEUE === "on" ? writeQueueConfig() : undefined;
try {
  applyLocalMigrations({ config });
} catch (error) {
  toLog(String(error.message));
  await fail("Applying the D1 migrations", error);
}

const offlineSettings = {};
let standinOrigin = null;
if (offline) {
  const { startTurnstileStandin } = await import("../dev/turnstile-standin.mjs");
  const standin = await startTurnstileStandin({ port: Number(process.env.STANDIN_PORT || 0) });
  cleanups.push(() => standin.close());
  offlineSettings.TURNSTILE_VERIFY_URL = standin.verifyUrl;
  offlineSettings.TURNSTILE_SCRIPT_URL = standin.scriptUrl;
  standinOrigin = standin.origin;
}
const forms = await loadForms().catch((error) => fail("Reading the forms in app/forms/", error));
const { settings, password: localPassword } = await localSettings(forms, offlineSettings);
const sink = await startLocalSink(forms, settings);

process.stdout.write("Starting the Worker… ");
await startWorkerDev({
  port,
  host,
  config,
  bindings: settings,
  logFile: LOG_FILE,
  onLine: (line) => {
    explainLine(line);
    reportMaintenance(line);
  },
  onEmail: (raw) => localSink?.captureEmail(raw),
  tickEveryMs: TICK_MS,
  onTick: (error) => {
    if (error) console.log(`✖ The scheduled run failed: ${error.message}. The next one is in ${TICK_MS / 1000} s.`);
  },
  onExit: (code) => {
    console.error(`\n✖ wrangler dev stopped unexpectedly (${code}): the site is down.\n  Full output: ${LOG_FILE}`);
    shutdown(1);
  },
  onSpawn: (stop) => cleanups.push(stop),
}).catch((error) => fail("wrangler dev", error));
console.log("done.");
printReadyBlock();

/**
 * Starts the local sink and points every form destination the environment leaves unset at it ("" switches one
 * off), turning on ALLOW_LOOPBACK_WEBHOOKS and telling the Worker where the sink is (ADR 066).
 */
async function startLocalSink(forms, settings) {
  settings.ALLOW_LOOPBACK_WEBHOOKS = "true";
  const { startLocalSink: startSink, loadKindSinks } = await import("../dev/local-sink.mjs");
  // Each kind says in its sink.mjs which settings point a form at the sink (ADR 114): no kind is named here.
  const locals = new Map((await loadKindSinks()).filter((kind) => kind.local).map((kind) => [kind.kind, kind.local]));
  const wanted = [];
  const external = [];
  for (const form of forms) {
    for (const kind of new Set(form.destinations)) {
      const local = locals.get(kind);
      const name = local && form.settings[local.switch];
      if (!name) continue;
      if (process.env[name] !== undefined) {
        if (process.env[name]) external.push([name, process.env[name]]);
      } else wanted.push({ form, local });
    }
  }
  const shared = [...locals.values()].flatMap((local) => (local.sharedSecret ? [local.sharedSecret] : []));
  const given = forms.flatMap((form) => shared.map((suffix) => settings[form.settings[suffix]])).find(Boolean);
  const secret = given || `whsec_${randomBytes(32).toString("base64")}`;
  mkdirSync(path.dirname(SINK_STATE_FILE), { recursive: true });
  const started = await startSink({ port: sinkPort, secret, log: true, stateFile: SINK_STATE_FILE }).catch((error) =>
    fail(`Starting the local sink on port ${sinkPort} (SINK_PORT picks another)`, error),
  );
  settings.LOCAL_SINK_URL = started.origin;
  settings.LOCAL_SINK_SECRET = secret;
  settings.LOCAL_SINK_SHEETS_KEY = started.sheetsKey;
  localSink = started;
  cleanups.push(() => started.close());
  for (const { form, local } of wanted) {
    const values = local.settings({ origin: started.origin, secret, sheetsKey: started.sheetsKey, formId: form.id });
    for (const [suffix, value] of Object.entries(values)) {
      const variable = form.settings[suffix];
      // The on-switch is the sink's; the rest only where neither the environment nor a default gave one.
      if (suffix === local.switch) settings[variable] = value;
      else if (process.env[variable] === undefined && !settings[variable]) settings[variable] = value;
    }
  }
  if (!settings.EMAIL_FROM) settings.EMAIL_FROM = process.env.EMAIL_FROM ?? "gatepost@localhost";
  if (!settings.PUBLIC_URL) settings.PUBLIC_URL = process.env.PUBLIC_URL ?? `http://localhost:${port}`;
  // The secret is printed only when the sink's own: a newcomer can verify a delivery with it.
  return { url: started.url, mode: started.modeUrl, page: started.pageUrl, external, secret: given ? null : secret };
}

/** The Worker logs each scheduled run's results as one JSON line: show failed jobs and drains that did something. */
function reportMaintenance(line) {
  if (!line.startsWith('{"maintenance"')) return;
  for (const job of JSON.parse(line).maintenance) {
    if (!job.ok) console.log(`✖ Scheduled job ${job.name} failed: ${job.error}`);
    else if (job.name === "drain-outbox" && job.result.claimed > 0) console.log(`[outbox drain] ${JSON.stringify(job.result)}`);
  }
}

/** The few log lines a person must see, one readable line each (a verification that cannot reach Cloudflare). */
function explainLine(line) {
  const unavailable = /Turnstile verification unavailable for (form \S+|the verify endpoint): (\w+)(?: \((.*)\))?/.exec(line);
  if (!unavailable) return;
  const [, who, code, detail = ""] = unavailable;
  const unreachable = /network|timeout/.test(code);
  const hint = unreachable && !offline ? " Offline? `npm run start:offline` uses a local stand-in." : "";
  const why = unreachable ? "could not reach Turnstile" : "got no verdict from Turnstile";
  console.log(`✖ A captcha check for ${who} ${why} (${code}${detail ? `: ${detail.slice(0, 80)}` : ""}); the post was refused.${hint}`);
}

function printReadyBlock() {
  const site = `http://${host === "0.0.0.0" ? "localhost" : host}:${port}`;
  const lines = ["", "─".repeat(64), `Gatepost is running${offline ? " offline (local Turnstile stand-in)" : ""}`, ""];
  lines.push(`  Site            ${site}`);
  lines.push(`  Forms           ${forms.map((form) => `${site}/f/${form.id}`).join("\n                  ")}`);
  lines.push(`  Console         ${site}/admin`);
  if (localPassword) lines.push(`  Local password  ${localPassword}`);
  if (sink.url) {
    lines.push(`  Sink page       ${sink.page}  (every webhook, e-mail, chat message, Sheets row, Airtable record)`);
    lines.push(`  Webhook sink    ${sink.url}  (prints each delivery below)`);
    lines.push(`                  receives every form's destinations left unset`);
    if (sink.secret) lines.push(`  Signing secret  ${sink.secret}  (verify a delivery: docs/webhooks.md)`);
    lines.push(`  E-mail files    ${path.join(tmpdir(), "miniflare-*", "files", "email")}/*.eml`);
    lines.push(`                  play a broken receiver: curl -X POST ${sink.mode} -d '{"mode":"http500"}'`);
  }
  for (const [name, url] of sink.external) lines.push(`  ${name} → ${url}`);
  if (standinOrigin) lines.push(`  Turnstile       stand-in on ${standinOrigin}`);
  lines.push(`  Log             ${LOG_FILE}`);
  lines.push(`  Stop            Ctrl-C`);
  lines.push("─".repeat(64));
  console.log(lines.join("\n"));
}

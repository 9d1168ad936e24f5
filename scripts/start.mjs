// `npm start`: build, migrate local D1, and serve Gatepost with embedded defaults that any environment
// variable overrides. `--offline` adds the local Turnstile stand-in for machines without internet.
// The console stays quiet: the build's and wrangler's output go to a log file, and the start ends with
// one block saying where everything is.
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

/** The form setting each destination kind the local sink can stand in for reads its URL from. */
const SINK_SUFFIXES = {
  webhook: "WEBHOOK_URL",
  slack: "SLACK_WEBHOOK_URL",
  discord: "DISCORD_WEBHOOK_URL",
  email: "EMAIL_TO",
  confirmation: "CONFIRMATION",
  sheets: "SHEETS_SPREADSHEET_ID",
  airtable: "AIRTABLE_BASE_ID",
  telegram: "TELEGRAM_BOT_TOKEN",
  googlechat: "GOOGLE_CHAT_WEBHOOK_URL",
  teams: "TEAMS_WEBHOOK_URL",
};
/** How often the Worker's cron runs locally (deployed: every minute), so retries need no request. */
const TICK_MS = 15_000;
/** The local sink once started: the Worker's simulated send_email hands it each e-mail. */
let localSink = null;

const cleanups = [];
async function shutdown(code = 0) {
  for (const fn of cleanups.reverse()) await fn().catch(() => {});
  process.exit(code);
}
process.on("SIGINT", () => shutdown(0));
process.on("SIGTERM", () => shutdown(0));
process.on("SIGHUP", () => shutdown(0));

/** Appends tool output to the log file; the console only gets what a person needs. */
function toLog(text) {
  appendFileSync(LOG_FILE, text);
}
/** A failed step: its reason in one line, where to read the rest, and exit. */
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
// DELIVERY_QUEUE=on: the delivery queue and its consumer run locally in Miniflare (docs/decisions/070).
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

// Each server is in the cleanups from the moment it is spawned: Ctrl-C during start-up stops it too.
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
  // Without the Worker there is no site: say so and stop, rather than run on without it.
  onExit: (code) => {
    console.error(`\n✖ wrangler dev stopped unexpectedly (${code}): the site is down.\n  Full output: ${LOG_FILE}`);
    shutdown(1);
  },
  onSpawn: (stop) => cleanups.push(stop),
}).catch((error) => fail("wrangler dev", error));
console.log("done.");
printReadyBlock();

/**
 * Where each form destination kind points locally when its setting is unset, given what the sink
 * offers: the webhook URL always; Slack- and Discord-style endpoints when the sink has them.
 */
function sinkEndpoint(started, kind) {
  if (kind === "webhook") return started.url;
  return started.urls?.[kind] ?? started[`${kind}Url`] ?? null;
}

/**
 * Starts the local sink (dev/local-sink.mjs: webhooks, Slack, Discord and e-mail, with a
 * page listing every message) and points every form destination whose setting is not in the
 * environment at it, by the naming convention: webhooks (signed with one local secret unless the
 * form's own is set), Slack and Discord to the sink's endpoints, e-mail to a local owner address and
 * the sender's confirmation on (the Worker's simulated send_email hands both to the sink). A variable set to "" in the
 * environment switches that destination off. Turns on ALLOW_LOOPBACK_WEBHOOKS, the local-dev-only
 * switch that allows plain http to 127.0.0.1, and tells the Worker where the sink is (LOCAL_SINK_URL,
 * LOCAL_SINK_SECRET): a console form's unset destinations go there too, and each secret the console
 * makes is told to the sink (ADR 066). Returns { url, mode, page, external, secret }.
 */
async function startLocalSink(forms, settings) {
  settings.ALLOW_LOOPBACK_WEBHOOKS = "true";
  const wanted = [];
  const external = [];
  for (const form of forms) {
    for (const kind of new Set(form.destinations)) {
      const name = form.settings[SINK_SUFFIXES[kind]];
      if (!name) continue;
      if (process.env[name] !== undefined) {
        if (process.env[name]) external.push([name, process.env[name]]);
      } else wanted.push({ form, kind, name });
    }
  }
  const { startLocalSink: startSink } = await import("../dev/local-sink.mjs");
  const given = forms.map((form) => settings[form.settings.WEBHOOK_SECRET]).find(Boolean);
  const secret = given || `whsec_${randomBytes(32).toString("base64")}`;
  mkdirSync(path.dirname(SINK_STATE_FILE), { recursive: true });
  const started = await startSink({ port: sinkPort, secret, log: true, stateFile: SINK_STATE_FILE }).catch((error) =>
    fail(`Starting the local sink on port ${sinkPort} (SINK_PORT picks another)`, error),
  );
  settings.LOCAL_SINK_URL = started.origin;
  settings.LOCAL_SINK_SECRET = secret;
  // The key its Google Sheets stand-in trusts: a console form's Sheets rows go there too (ADR 093).
  settings.LOCAL_SINK_SHEETS_KEY = started.sheetsKey;
  localSink = started;
  cleanups.push(() => started.close());
  const { AIRTABLE_LOCAL } = await import("../app/lib/destinations/airtable/sink.mjs");
  const { SHEETS_LOCAL_ID } = await import("../app/lib/destinations/sheets/sink.mjs");
  const { TELEGRAM_LOCAL } = await import("../app/lib/destinations/telegram/sink.mjs");
  // The sink's Google Sheets and Airtable stand-ins: their ids, key and token, beside the one named setting.
  const tableSettings = {
    // A tab per form, so each form's rows sit under its own header row.
    sheets: (own, form) => ({
      [own.SHEETS_TAB]: form.id,
      [own.SHEETS_SERVICE_ACCOUNT_KEY]: started.sheetsKey,
      [own.SHEETS_API_URL]: `${started.origin}/sheets`,
    }),
    airtable: (own) => ({
      [own.AIRTABLE_TABLE]: AIRTABLE_LOCAL.table,
      [own.AIRTABLE_TOKEN]: AIRTABLE_LOCAL.token,
      [own.AIRTABLE_API_URL]: `${started.origin}/airtable`,
    }),
    telegram: (own) => ({ [own.TELEGRAM_CHAT_ID]: TELEGRAM_LOCAL.chatId, [own.TELEGRAM_API_URL]: `${started.origin}/telegram` }),
  };
  for (const { form, kind, name } of wanted) {
    const value =
      kind === "email"
        ? "owner@localhost"
        : kind === "confirmation"
          ? "on"
          : kind === "sheets"
            ? SHEETS_LOCAL_ID
            : kind === "airtable"
              ? AIRTABLE_LOCAL.baseId
              : kind === "telegram"
                ? TELEGRAM_LOCAL.token
                : sinkEndpoint(started, kind);
    if (!value) continue;
    settings[name] = value;
    for (const [variable, local] of Object.entries(tableSettings[kind]?.(form.settings, form) ?? {})) {
      if (process.env[variable] === undefined) settings[variable] = local;
    }
    if (kind === "webhook" && !settings[form.settings.WEBHOOK_SECRET]) settings[form.settings.WEBHOOK_SECRET] = secret;
  }
  // E-mails need a sender and links a public origin; the environment's values win.
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

/**
 * Turns the few log lines a person must see into one readable line each; the rest stays in the log.
 * A verification that cannot reach Cloudflare (offline, DNS) is the common one.
 */
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

// `npm start`: build, migrate local D1, and serve Gatepost with embedded defaults that any environment
// variable overrides. `--offline` adds the local Turnstile stand-in for machines without internet.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { hashPassword } from "./hash-password.mjs";
import { applyLocalMigrations, startPagesDev } from "./pages-dev.mjs";
import { settingNames } from "./setting-names.mjs";
import { startOutboxDrainDev } from "./outbox-drain-dev.mjs";

const offline = process.argv.includes("--offline");
const port = Number(process.env.PORT || 8788);

// Cloudflare's documented always-pass test keys: fine locally, never for a deployed site.
const DEFAULTS = {
  TURNSTILE_SITE_KEY: "1x00000000000000000000AA",
  TURNSTILE_SECRET_KEY: "1x0000000000000000000000000000000AA",
  TURNSTILE_VERIFY_URL: "https://challenges.cloudflare.com/turnstile/v0/siteverify",
  TURNSTILE_SCRIPT_URL: "https://challenges.cloudflare.com/turnstile/v0/api.js",
  TURNSTILE_ALLOWED_HOSTNAMES: "",
  // Signs the timestamps of Gatepost's own form pages. A fixed local value; a deployed site sets its own
  // secret (docs/deploy.md) and refuses page posts without one.
  FORM_SIGNING_SECRET: "local-only-form-signing-secret-not-for-deployment",
  FORM_ALLOWED_ORIGINS: "",
};

/**
 * The operator console's local settings: a fresh password each start (ADMIN_PASSWORD picks your
 * own), hashed here and printed once the server is up, and a random session secret. Any admin
 * setting in the environment (ADMIN_PASSWORD_HASH, VIEWER_PASSWORD_HASH, SESSION_SECRET,
 * CF_ACCESS_TEAM_DOMAIN, CF_ACCESS_AUD) wins, as every setting does.
 */
async function adminDevSettings() {
  const settings = {
    ADMIN_PASSWORD_HASH: "",
    VIEWER_PASSWORD_HASH: "",
    SESSION_SECRET: randomBytes(32).toString("base64url"),
    CF_ACCESS_TEAM_DOMAIN: "",
    CF_ACCESS_AUD: "",
  };
  if (process.env.ADMIN_PASSWORD_HASH) return { settings, password: null };
  const password = process.env.ADMIN_PASSWORD || randomBytes(12).toString("base64url");
  return { settings: { ...settings, ADMIN_PASSWORD_HASH: await hashPassword(password) }, password };
}

const cleanups = [];
/** The local sink (tests/support/webhook-sink.mjs): webhooks, Slack, Discord and e-mail, shown as read. */
let localSink = null;
async function shutdown(code = 0) {
  for (const fn of cleanups.reverse()) await fn().catch(() => {});
  process.exit(code);
}
process.on("SIGINT", () => shutdown(0));
process.on("SIGTERM", () => shutdown(0));

if (!process.env.SKIP_BUILD) {
  const build = spawnSync(process.execPath, ["node_modules/@remix-run/dev/dist/cli.js", "vite:build"], { stdio: "inherit" });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
applyLocalMigrations();

const adminDev = await adminDevSettings();
const settings = { ...DEFAULTS, ...adminDev.settings };
if (offline) {
  const { startTurnstileStandin } = await import("../tests/support/turnstile-standin.mjs");
  const standin = await startTurnstileStandin({ port: Number(process.env.STANDIN_PORT || 0) });
  cleanups.push(() => standin.close());
  settings.TURNSTILE_VERIFY_URL = standin.verifyUrl;
  settings.TURNSTILE_SCRIPT_URL = standin.scriptUrl;
  console.log(`Turnstile stand-in on ${standin.origin}`);
}
for (const key of new Set([...Object.keys(settings), ...settingNames()])) {
  if (process.env[key] !== undefined) settings[key] = process.env[key];
}
Object.assign(settings, await startLocalWebhookSink());
Object.assign(settings, notificationDefaults(settings));

// Each server is in the cleanups from the moment it is spawned: Ctrl-C during start-up stops it too.
await startPagesDev({ port, host: process.env.HOST || "localhost", bindings: settings, onSpawn: (stop) => cleanups.push(stop) });
await startLocalOutboxDrain(settings).catch(async (error) => {
  console.error(error);
  await shutdown(1);
});
console.log(`\nGatepost is running on http://localhost:${port}${offline ? " (offline: stand-in Turnstile)" : ""}`);
if (adminDev.password) console.log(`Operator console: http://localhost:${port}/admin  (local password: ${adminDev.password})`);

// --- Webhooks (issue 3): a local sink that prints each delivery, and the scheduled drain Worker. ---

/** Each form's destination variables (app/forms/*.ts); every one without a URL goes to the local sink. */
function webhookDestinations() {
  return [
    ["CONTACT_WEBHOOK_URL", "CONTACT_WEBHOOK_SECRET"],
    ["NEWSLETTER_WEBHOOK_URL", "NEWSLETTER_WEBHOOK_SECRET"],
  ];
}

/**
 * Starts tests/support/webhook-sink.mjs and points every form webhook whose URL is not set at it.
 * Turns on ALLOW_LOOPBACK_WEBHOOKS, the local-dev-only switch that lets a destination be plain http
 * on 127.0.0.1. Returns the settings to add.
 */
async function startLocalWebhookSink() {
  const webhook = { ALLOW_LOOPBACK_WEBHOOKS: "true" };
  const unset = [];
  for (const [urlVar, secretVar] of webhookDestinations()) {
    if (!process.env[urlVar]) unset.push([urlVar, secretVar]);
    else {
      Object.assign(webhook, { [urlVar]: process.env[urlVar], [secretVar]: process.env[secretVar] ?? "" });
      console.log(`Webhooks for ${urlVar} go to ${process.env[urlVar]}.`);
    }
  }
  const { startLocalSink } = await import("../tests/support/webhook-sink.mjs");
  const given = unset.map(([, secretVar]) => process.env[secretVar]).find(Boolean);
  const secret = given || `whsec_${randomBytes(32).toString("base64")}`;
  const sink = await startLocalSink({ port: Number(process.env.SINK_PORT || 0), secret, log: true });
  localSink = sink;
  cleanups.push(() => sink.close());
  console.log(`Local sink page: ${sink.pageUrl} lists every e-mail, Slack and Discord message that would be sent.`);
  if (unset.length === 0) return webhook;
  for (const [urlVar, secretVar] of unset) Object.assign(webhook, { [urlVar]: sink.url, [secretVar]: secret });
  console.log(`Webhook sink on ${sink.url}: it prints every delivery and whether its signature checked out.`);
  console.log(`  Play a broken receiver: curl -X POST ${sink.controlOrigin}/mode -d '{"mode":"down"}' (down|http500|slow|reset|normal)`);
  return webhook;
}

/**
 * Notifications (issue 20): unless set in the environment, the contact form's Slack and Discord messages go to the local
 * sink, its owner e-mail and the sender's confirmation are on, and e-mails come from a local sender.
 * The drain Worker's simulated send_email hands each e-mail to the sink (startLocalOutboxDrain).
 */
function notificationDefaults(current) {
  if (!localSink) return {};
  const defaults = {
    EMAIL_FROM: "gatepost@localhost",
    PUBLIC_URL: `http://localhost:${port}`,
    CONTACT_EMAIL_TO: "owner@localhost",
    CONTACT_SLACK_WEBHOOK_URL: localSink.slackUrl,
    CONTACT_DISCORD_WEBHOOK_URL: localSink.discordUrl,
    CONTACT_CONFIRMATION: "on",
  };
  // A value in the environment wins (empty switches the kind off); settings already given stay.
  return Object.fromEntries(Object.entries(defaults).filter(([key]) => !current[key]).map(([key, value]) => [key, process.env[key] ?? value]));
}

/** Runs workers/outbox-drain on the same local D1 and fires its cron every 15 s, so retries need no request. */
async function startLocalOutboxDrain(settings) {
  // The drain Worker reads the same settings as the site: every site-wide and form setting.
  const keys = Object.keys(settings).filter((k) => /^[A-Z][A-Z0-9_]*$/.test(k));
  await startOutboxDrainDev({
    bindings: Object.fromEntries(keys.map((k) => [k, settings[k]])),
    onEmail: (raw) => localSink?.captureEmail(raw),
    intervalMs: 15_000,
    onReport(results) {
      for (const job of results) {
        if (!job.ok) console.log(`[outbox drain] ${job.name} failed: ${job.error}`);
        else if (job.name === "drain-outbox" && job.result.claimed > 0) console.log(`[outbox drain] ${JSON.stringify(job.result)}`);
      }
    },
    onSpawn: (stop) => cleanups.push(stop),
  });
  console.log("Outbox drain Worker running: due retries and every e-mail are sent every 15 s.");
}

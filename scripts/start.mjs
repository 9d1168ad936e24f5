// `npm start`: build, migrate local D1, and serve Gatepost with embedded defaults that any environment
// variable overrides. `--offline` adds the local Turnstile stand-in for machines without internet.
import { spawnSync } from "node:child_process";
import { applyLocalMigrations, startPagesDev } from "./pages-dev.mjs";

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

const cleanups = [];
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

const settings = { ...DEFAULTS };
if (offline) {
  const { startTurnstileStandin } = await import("../tests/support/turnstile-standin.mjs");
  const standin = await startTurnstileStandin({ port: Number(process.env.STANDIN_PORT || 0) });
  cleanups.push(() => standin.close());
  settings.TURNSTILE_VERIFY_URL = standin.verifyUrl;
  settings.TURNSTILE_SCRIPT_URL = standin.scriptUrl;
  console.log(`Turnstile stand-in on ${standin.origin}`);
}
for (const key of Object.keys(settings)) {
  if (process.env[key] !== undefined) settings[key] = process.env[key];
}

const server = await startPagesDev({ port, host: process.env.HOST || "localhost", bindings: settings });
cleanups.push(() => server.stop());
console.log(`\nGatepost is running on http://localhost:${port}${offline ? " (offline: stand-in Turnstile)" : ""}`);

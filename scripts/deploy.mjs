// `npm run deploy`: from a fresh clone and `npx wrangler login` to a running Gatepost (docs/deploy.md); a second
// run creates nothing and changes no secret. `-- --dry-run` validates offline. Non-interactive: TURNSTILE_SITE_KEY,
// TURNSTILE_SECRET_KEY and ADMIN_PASSWORD from the environment answer the questions.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { runDeploy } from "./deploy-plan.mjs";
import { hashPassword } from "./hash-password.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const WRANGLER = fileURLToPath(new URL("../node_modules/wrangler/bin/wrangler.js", import.meta.url));
const CONFIG = fileURLToPath(new URL("../wrangler.toml", import.meta.url));

/** Runs wrangler with `args`; returns its stdout, or throws with its output. `input` goes to stdin. */
function wrangler(args, { input, inherit = false, quiet = false } = {}) {
  const result = spawnSync(process.execPath, [WRANGLER, ...args], {
    cwd: ROOT,
    input,
    encoding: "utf8",
    stdio: inherit ? ["ignore", "inherit", "inherit"] : ["pipe", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1", ...(quiet ? { WRANGLER_LOG: "warn" } : {}) },
  });
  if (result.status !== 0) throw new Error(`wrangler ${args[0]} ${args[1] ?? ""} failed:\n${result.stdout ?? ""}${result.stderr ?? ""}`);
  return result.stdout ?? "";
}

/** The seam of scripts/deploy-plan.mjs, over the wrangler CLI. */
const cli = {
  async whoami() {
    try {
      return JSON.parse(wrangler(["whoami", "--json"])).email ?? "signed in";
    } catch {
      return null;
    }
  },
  listDatabases: async () => JSON.parse(wrangler(["d1", "list", "--json"])).map((db) => ({ name: db.name, uuid: db.uuid })),
  createDatabase: async (name) => void wrangler(["d1", "create", name]),
  listBuckets: async () => [...wrangler(["r2", "bucket", "list"]).matchAll(/^name:\s+(\S+)/gm)].map((m) => m[1]),
  createBucket: async (name) => void wrangler(["r2", "bucket", "create", name]),
  async listSecrets() {
    try {
      return JSON.parse(wrangler(["secret", "list", "--format", "json"])).map((secret) => secret.name);
    } catch (error) {
      // A Worker that was never deployed has no secrets yet.
      if (/does not exist|not found|10007/i.test(String(error.message))) return [];
      throw error;
    }
  },
  async ensureQueue(name) {
    try {
      wrangler(["queues", "create", name]);
      return true;
    } catch (error) {
      if (/already exists|already taken|11009/i.test(String(error.message))) return false;
      throw error;
    }
  },
  // On stdin, so no secret is written to disk or shown in a process list.
  putSecrets: async (secrets) => void wrangler(["secret", "bulk"], { input: JSON.stringify(secrets) }),
  applyMigrations: async () => void wrangler(["d1", "migrations", "apply", "DB", "--remote"], { inherit: true }),
  deploy: async () => void wrangler(["deploy"], { inherit: true }),
};

function build() {
  const result = spawnSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" });
  if (result.status !== 0) throw new Error("The build failed.");
}

/** The owner's answers: from the environment, or asked on the terminal (secrets hidden). */
async function ask(names) {
  const answers = {};
  const missing = names.filter((name) => !process.env[name]);
  for (const name of names) if (process.env[name]) answers[name] = process.env[name];
  if (missing.length === 0) return answers;
  if (!process.stdin.isTTY) throw new Error(`Not deployed: set ${missing.join(", ")} (no terminal to ask on).`);
  const { default: input } = await import("@inquirer/input");
  const { default: password } = await import("@inquirer/password");
  const questions = {
    TURNSTILE_SITE_KEY: () => input({ message: "Turnstile sitekey (dashboard → Turnstile → your widget):" }),
    TURNSTILE_SECRET_KEY: () => password({ message: "Turnstile secret key:", mask: "*" }),
    ADMIN_PASSWORD: () => password({ message: "A password for the console (12+ characters; only its hash is stored):", mask: "*" }),
  };
  for (const name of missing) answers[name] = (await questions[name]()).trim();
  return answers;
}

if (process.argv.includes("--dry-run")) {
  build();
  wrangler(["deploy", "--dry-run", "--outdir", ".wrangler/deploy-dry-run"], { inherit: true, quiet: true });
  console.log("Dry run: the Worker, its assets and bindings build and validate. Nothing was deployed.");
} else {
  try {
    const { created, secrets } = await runDeploy({ wrangler: cli, ask, hashPassword, build, configFile: CONFIG });
    const made = [
      created.database && "the D1 database",
      created.bucket && "the R2 bucket",
      created.queues.length > 0 && `the queues ${created.queues.join(", ")}`,
    ].filter(Boolean);
    console.log(`\nGatepost is deployed.${made.length > 0 ? ` Created ${made.join(" and ")}.` : " Nothing new was created."}`);
    console.log(secrets.length > 0 ? `Secrets stored: ${secrets.join(", ")}.` : "No secret was changed.");
    console.log("Next: the Turnstile widget's hostnames and e-mail (docs/deploy.md).");
  } catch (error) {
    console.error(`\n✖ ${error.message}`);
    process.exit(1);
  }
}

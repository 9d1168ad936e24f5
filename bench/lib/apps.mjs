// The apps the bench measures, built and bundled once per run (`wrangler deploy --dry-run`): Gatepost, its config's
// rate-limiting bindings raised (every load post comes from one address), the bare app, and the bare app with
// Gatepost's route table.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { experimental_readRawConfig } from "wrangler";
import { BASELINE_DIR, buildBaseline, ROUTES_BASELINE_DIR } from "../build-baseline.mjs";
import { ROOT } from "./servers.mjs";

const OUT = path.join(ROOT, "bench/.baseline");
const WRANGLER = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");
const RAISED_LIMIT = 1_000_000_000;

/** Gatepost's wrangler.toml as JSON with absolute paths and raised rate-limiting bindings. Returns its path. */
function writeGatepostBenchConfig() {
  const { rawConfig } = experimental_readRawConfig({ config: path.join(ROOT, "wrangler.toml") });
  const config = {
    ...rawConfig,
    main: path.join(ROOT, rawConfig.main),
    assets: { ...rawConfig.assets, directory: path.join(ROOT, rawConfig.assets.directory) },
    d1_databases: rawConfig.d1_databases.map((db) => ({ ...db, migrations_dir: path.join(ROOT, db.migrations_dir) })),
    ratelimits: (rawConfig.ratelimits ?? []).map((r) => ({ ...r, simple: { ...r.simple, limit: RAISED_LIMIT } })),
  };
  const dir = path.join(OUT, "gatepost");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "wrangler.json");
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

/** `wrangler deploy --dry-run --outdir`: the Worker exactly as it would be uploaded. Throws with wrangler's output. */
function bundle(name, deployConfig) {
  const outdir = path.join(OUT, "bundles", name);
  rmSync(outdir, { recursive: true, force: true });
  const run = spawnSync(process.execPath, [WRANGLER, "deploy", "--dry-run", "--outdir", outdir, "--config", deployConfig], {
    cwd: path.dirname(deployConfig),
    env: { ...process.env, CI: "true", NO_COLOR: "1" },
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`wrangler deploy --dry-run of ${name} failed:\n${run.stdout}\n${run.stderr}`);
  return outdir;
}

/** Builds and bundles the three apps: { gatepost, baseline, routes }, each { name, config, readyPath, bundleDir }. */
export function prepareApps({ skipBuild = false, log = () => {} } = {}) {
  if (!skipBuild) {
    log("building Gatepost");
    const build = spawnSync("npm", ["run", "build"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
    if (build.status !== 0) throw new Error("npm run build failed");
  }
  log("building the bare app and the bare app with Gatepost's routes");
  buildBaseline();
  buildBaseline({ variant: "routes" });
  const apps = {
    gatepost: {
      name: "gatepost",
      deployConfig: path.join(ROOT, "wrangler.toml"),
      config: writeGatepostBenchConfig(),
      readyPath: "/healthz",
    },
    baseline: { name: "baseline", deployConfig: path.join(BASELINE_DIR, "wrangler.toml"), readyPath: "/" },
    routes: { name: "routes", deployConfig: path.join(ROUTES_BASELINE_DIR, "wrangler.toml"), readyPath: "/" },
  };
  log("bundling the three Workers (wrangler deploy --dry-run)");
  for (const app of Object.values(apps)) {
    app.config ??= app.deployConfig;
    app.bundleDir = bundle(app.name, app.deployConfig);
  }
  return apps;
}

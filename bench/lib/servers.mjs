// Servers the benchmarks start and stop: `wrangler pages dev` for any Pages project folder, and the
// same Functions bundle run in workerd through Miniflare directly (no pages dev proxy in front).
// Loopback only; every start returns a stop that ends what it started (pages dev as a process group).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, spawnGroup } from "../../scripts/process-group.mjs";

export { freePort };

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const WRANGLER = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");

/** Applies migrations to a project's local D1 under persistTo. Throws with wrangler's output on failure. */
export function applyMigrations({ cwd, persistTo }) {
  const result = spawnSync(process.execPath, [WRANGLER, "d1", "migrations", "apply", "DB", "--local", "--persist-to", persistTo], {
    cwd,
    env: { ...process.env, CI: "true" },
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`migrations failed in ${cwd}:\n${result.stdout}\n${result.stderr}`);
}

async function waitFor(url, isAlive, timeoutMs, describe) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive()) throw new Error(`${describe()} exited early`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      if (res.status < 500) return;
    } catch {
      // not listening yet: try again until the deadline
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

const starting = new Set();

/** Stops every pages dev this module spawned that has not been stopped yet (for interrupts). */
export async function stopStartedServers() {
  await Promise.allSettled([...starting].map((stop) => stop()));
  starting.clear();
}

/** `wrangler pages dev` in `cwd` (its functions/ and wrangler.toml), in its own process group. */
export async function startPagesDev({ cwd, port, bindings = {}, persistTo, readyPath = "/", timeoutMs = 120_000 }) {
  // Both apps run the one wrangler in node_modules, with its dev-proxy fix (patches/, ADR 021).
  const args = [WRANGLER, "pages", "dev", "./build/client", "--ip", "127.0.0.1", "--port", String(port)];
  args.push("--inspector-port", "0", "--show-interactive-dev-session=false", "--persist-to", persistTo);
  for (const [key, value] of Object.entries(bindings)) if (value !== "") args.push("--binding", `${key}=${value}`);
  // As scripts/pages-dev.mjs: the Function bundled as `wrangler pages deploy` bundles it (production React).
  const group = spawnGroup(process.execPath, args, { cwd, env: { ...process.env, CI: "true", NO_COLOR: "1", NODE_ENV: "production" } });
  const { output, exited } = group;
  // Tracked from the moment it is spawned, so an interrupt during start-up still stops it.
  const stop = () => (starting.delete(group.stop), group.stop());
  starting.add(group.stop);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(
      `${url}${readyPath}`,
      () => !exited(),
      timeoutMs,
      () => `pages dev in ${cwd}:\n${output()}`,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop, output };
}

/** The [[d1_databases]] id of a project's wrangler.toml (Miniflare must use wrangler's object name). */
export function readDatabaseId(cwd) {
  const toml = readFileSync(path.join(cwd, "wrangler.toml"), "utf8");
  const id = /database_id\s*=\s*"([^"]+)"/.exec(toml)?.[1];
  if (!id) throw new Error(`no database_id in ${cwd}/wrangler.toml`);
  return id;
}

/**
 * Bundles a project's functions/[[path]] with esbuild into one module Worker that calls its onRequest
 * with a Pages-style context, and runs it in workerd through Miniflare on `port`, with the D1 state
 * wrangler wrote under persistTo. `inspectorPort` opens workerd's inspector for profiling.
 */
export async function startMiniflare({ cwd, functionFile, port, bindings = {}, persistTo, inspectorPort }) {
  const { build } = await import("esbuild");
  const { Log, LogLevel, Miniflare } = await import("miniflare");
  const outDir = path.join(ROOT, "bench/.baseline/miniflare");
  mkdirSync(outDir, { recursive: true });
  const entry = path.join(outDir, `entry-${path.basename(cwd)}.js`);
  const bundle = path.join(outDir, `worker-${path.basename(cwd)}.js`);
  const { writeFileSync } = await import("node:fs");
  writeFileSync(
    entry,
    `import { onRequest } from ${JSON.stringify(path.join(cwd, "functions", functionFile))};
// No static files here: a handler that asks ASSETS first, as on Pages, gets a 404. Built once per
// env, as Pages hands a Function the same env on every request.
const ASSETS = { fetch: async () => new Response(null, { status: 404 }) };
let pagesEnv = null;
let pagesEnvOf = null;
// The bench's latency mode: every D1 round trip (a statement run, a batch, an exec) waits this long
// first, as a request far from the database's primary does. Only this bench runtime wraps the
// binding; the app never sees the setting.
function delayedD1(db, ms) {
  const wait = () => new Promise((resolve) => setTimeout(resolve, ms));
  const real = new WeakMap();
  const statement = (stmt) => {
    const proxy = new Proxy(stmt, {
      get(target, key) {
        if (key === "bind") return (...args) => statement(target.bind(...args));
        if (key === "first" || key === "all" || key === "run" || key === "raw") {
          return async (...args) => (await wait(), target[key](...args));
        }
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    real.set(proxy, stmt);
    return proxy;
  };
  return new Proxy(db, {
    get(target, key) {
      if (key === "prepare") return (sql) => statement(target.prepare(sql));
      if (key === "batch") return async (list) => (await wait(), target.batch(list.map((s) => real.get(s) ?? s)));
      if (key === "exec") return async (sql) => (await wait(), target.exec(sql));
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
export default {
  async fetch(request, env, ctx) {
    try {
      if (pagesEnvOf !== env) {
        const { BENCH_D1_LATENCY_MS, ...appEnv } = env;
        pagesEnv = { ...appEnv, ASSETS };
        if (Number(BENCH_D1_LATENCY_MS) > 0) pagesEnv.DB = delayedD1(env.DB, Number(BENCH_D1_LATENCY_MS));
        pagesEnvOf = env;
      }
      return await onRequest({
      // Pages hands Functions a mutable copy of the request (the Remix handler edits its headers).
      request: new Request(request), env: pagesEnv, params: {}, data: {}, functionPath: "",
      waitUntil: (p) => ctx.waitUntil(p),
      passThroughOnException: () => ctx.passThroughOnException(),
      next: () => new Response("Not found", { status: 404 }),
      });
    } catch (error) {
      console.error("bench worker:", error && error.stack ? error.stack : error);
      return new Response("bench worker error", { status: 500 });
    }
  },
};
`,
  );
  await build({
    entryPoints: [entry],
    outfile: bundle,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["module", "main"],
    external: ["node:*", "cloudflare:*"],
    // As wrangler bundles Functions: React's production build, not its development checks.
    define: { "process.env.NODE_ENV": '"production"' },
    // A project's own tsconfig where it has one (an older Gatepost built for the latency mode).
    tsconfig: existsSync(path.join(cwd, "tsconfig.json")) ? path.join(cwd, "tsconfig.json") : path.join(ROOT, "tsconfig.json"),
    logLevel: "error",
  });
  const mf = new Miniflare({
    // Listed explicitly: Remix's client loader has an import(variable) that auto-detection refuses.
    modules: [{ type: "ESModule", path: bundle }],
    modulesRoot: outDir,
    compatibilityDate: "2025-04-01",
    compatibilityFlags: ["nodejs_compat"],
    host: "127.0.0.1",
    port,
    inspectorPort,
    d1Databases: { DB: readDatabaseId(cwd) },
    d1Persist: path.join(persistTo, "v3", "d1"),
    bindings,
    // Uncaught errors are printed; routine request logs stay off (they would cost time under load).
    log: new Log(LogLevel[process.env.BENCH_MF_LOG || "ERROR"]),
  });
  const url = (await mf.ready).toString().replace(/\/$/, "");
  return { url, mf, bundleFile: bundle, stop: () => mf.dispose() };
}

/** An empty state folder of the bench's own (bench/.baseline/state/<name>), so no run sees another's D1. */
export function freshState(name) {
  const dir = path.join(ROOT, "bench/.baseline/state", name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * A project's Functions in workerd through Miniflare on a fresh, migrated D1 of its own. Resolves to
 * { port, url, cwd, inspectorPort, bundleFile, stop }; the caller stops it.
 */
export async function startFreshMiniflare({ cwd, bindings, name, inspectorPort }) {
  const state = freshState(name);
  applyMigrations({ cwd, persistTo: state });
  const port = await freePort();
  const functionFile = existsSync(path.join(cwd, "functions", "[[path]].ts")) ? "[[path]].ts" : "[[path]].js";
  const server = await startMiniflare({ cwd, functionFile, port, bindings, persistTo: state, inspectorPort });
  return { port, url: server.url, cwd, inspectorPort, bundleFile: server.bundleFile, stop: server.stop };
}

let ticksPerSecond = null;

/**
 * CPU time (user + system, ms) used so far by the workerd process Miniflare started on `port`, read
 * from /proc (Linux). It covers the app's isolate and the local D1 behind it, and nothing of the
 * load generator or the stand-in provider, which run in other processes.
 */
export function workerdCpuMs(port) {
  ticksPerSecond ??= Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;
  const needle = `--socket-addr=entry=127.0.0.1:${port}`;
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    let cmdline = "";
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    } catch {
      continue;
    }
    if (!cmdline.split("\0").includes(needle)) continue;
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
  }
  throw new Error(`no workerd process serves 127.0.0.1:${port}`);
}

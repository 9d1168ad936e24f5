// The servers the bench starts: an app under `wrangler dev` or Miniflare (the dry-run bundle), each on a fresh
// migrated D1, loopback only, in its own process group; every server is known here so an interrupt stops all.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, spawnGroup } from "../../scripts/process-group.mjs";
import { applyLocalMigrations, startWorkerDev } from "../../scripts/worker-dev.mjs";
import { pinServer } from "./pin.mjs";

export { freePort };
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const RUNTIMES = ["wrangler dev", "miniflare"];
const MINIFLARE_CHILD = fileURLToPath(new URL("./miniflare-child.mjs", import.meta.url));
const live = new Set();

/** Stops every server started here and not stopped yet (for interrupts and the watchdog). */
export async function stopAllServers() {
  await Promise.allSettled([...live].map((stop) => stop()));
}

/** An empty state folder of the bench's own (bench/.baseline/state/<name>), so no server sees another's D1. */
export function freshState(name) {
  const dir = path.join(ROOT, "bench/.baseline/state", name.replace(/[^\w.-]+/g, "-"));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Tracks a group's stop from its spawn (so stopAllServers reaches it); the returned stop forgets it once called. */
export function tracked(stop) {
  const once = () => (live.delete(once), stop());
  live.add(once);
  return once;
}

/**
 * Starts `app` in `runtime` on a fresh D1 (or `reuseState`); `inspect` opens workerd's inspector (Miniflare only).
 * Resolves to { name, runtime, url, port, pgid, persistTo, config, stop, cpuMs, memoryKiB, resetPeak, … }.
 */
export async function startServer(runtime, app, { bindings = {}, name, inspect = false, reuseState = null }) {
  const persistTo = reuseState ?? freshState(`${name}-${runtime}`);
  applyLocalMigrations({ persistTo, config: app.config });
  const port = await freePort();
  let server;
  if (runtime === "wrangler dev") {
    let stop = null;
    const dev = await startWorkerDev({
      port,
      config: app.config,
      readyPath: app.readyPath,
      bindings,
      persistTo,
      log: "pipe",
      onSpawn: (s) => (stop = tracked(s)),
    }).catch(async (error) => {
      await stop?.();
      throw error;
    });
    server = { url: dev.url, pgid: dev.pid, stop, tick: dev.tick, output: dev.output };
  } else if (runtime === "miniflare") {
    const inspectorPort = inspect ? await freePort() : undefined;
    const options = { config: app.config, bundleDir: app.bundleDir, persistTo, port, inspectorPort, bindings };
    const group = spawnGroup(process.execPath, [MINIFLARE_CHILD], {
      cwd: ROOT,
      env: { ...process.env, BENCH_MINIFLARE: JSON.stringify(options) },
    });
    const stop = tracked(group.stop);
    const ready = await waitForLine(group, 120_000).catch(async (error) => {
      await stop();
      throw error;
    });
    server = { url: ready.url, pgid: group.pid, stop, inspectorPort, bundleFile: ready.bundleFile, output: group.output };
  } else {
    throw new Error(`unknown runtime ${runtime}`);
  }
  pinServer(server.pgid);
  return {
    name,
    runtime,
    port,
    persistTo,
    config: app.config,
    readyPath: app.readyPath,
    ...server,
    cpuMs: () => workerdCpuMs(server.pgid, port),
    memoryKiB: () => workerdMemoryKiB(server.pgid, port),
    resetPeak: () => resetWorkerdPeak(server.pgid, port),
  };
}

async function waitForLine(group, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = group
      .output()
      .split("\n")
      .find((l) => l.startsWith("{"));
    if (line) return JSON.parse(line);
    if (group.exited() || Date.now() > deadline) throw new Error(`Miniflare did not start:\n${group.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let ticksPerSecond = null;

/** The app's own workerd in process group `pgid` (under `wrangler dev`, not the proxy in front): { pid, stat }. */
function appWorkerd(pgid, port) {
  const workerds = [];
  for (const pid of readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
    let stat;
    let cmdline;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    } catch {
      continue; // gone between the listing and the read
    }
    if (!stat.includes("(workerd)")) continue;
    const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
    if (Number(fields[2]) !== pgid) continue;
    workerds.push({ pid: Number(pid), fields, proxy: cmdline.includes(`--socket-addr=entry=127.0.0.1:${port}`) });
  }
  const own = workerds.length > 1 ? workerds.filter((w) => !w.proxy) : workerds;
  if (own.length !== 1) throw new Error(`expected one workerd running the app in process group ${pgid}, found ${own.length}`);
  return own[0];
}

/** Each thread's CPU time last seen, per workerd pid: a thread that ends keeps what it used until then. */
const threadsSeen = new Map();

/** CPU ms used so far by the app's workerd: its threads' sched run times (ns), else /proc stat's 10 ms ticks. */
export function workerdCpuMs(pgid, port) {
  const { pid, fields } = appWorkerd(pgid, port);
  const threads = threadsSeen.get(pid) ?? new Map();
  threadsSeen.set(pid, threads);
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      let sched;
      try {
        sched = readFileSync(`/proc/${pid}/task/${tid}/sched`, "utf8");
      } catch {
        continue; // ended since the listing
      }
      const ms = Number(/^se\.sum_exec_runtime\s*:\s*([\d.]+)/m.exec(sched)?.[1]);
      if (Number.isFinite(ms)) threads.set(tid, ms);
    }
  } catch {
    // no task folder: the ticks below
  }
  if (threads.size > 0) return [...threads.values()].reduce((a, b) => a + b, 0);
  ticksPerSecond ??= Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

/** The app's workerd's resident memory now and its high-water mark, in KiB (/proc/<pid>/status VmRSS, VmHWM). */
export function workerdMemoryKiB(pgid, port) {
  const status = readFileSync(`/proc/${appWorkerd(pgid, port).pid}/status`, "utf8");
  const kib = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
  return { rss: kib("VmRSS"), hwm: kib("VmHWM") };
}

/** Sets the app's workerd's VmHWM back to its VmRSS now (`echo 5 > /proc/<pid>/clear_refs`, Linux 4.0+). */
export function resetWorkerdPeak(pgid, port) {
  writeFileSync(`/proc/${appWorkerd(pgid, port).pid}/clear_refs`, "5");
}

/** The servers of one runtime, started on first use by get(appName, variant, instance) and shared; stop() stops each. */
export function serverPool(runtime, apps, settings) {
  const started = new Map();
  return {
    runtime,
    get(appName, variant = appName, instance = "") {
      const key = `${appName}/${variant}${instance ? `/${instance}` : ""}`;
      const name = `${appName}-${variant}${instance ? `-${instance}` : ""}`;
      if (!started.has(key)) started.set(key, startServer(runtime, apps[appName], { bindings: settings[variant], name }));
      return started.get(key);
    },
    async stop() {
      const servers = await Promise.allSettled(started.values());
      for (const s of servers) if (s.status === "fulfilled") await s.value.stop();
      started.clear();
    },
  };
}

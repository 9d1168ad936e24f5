// A CPU profile of the app isolate through workerd's inspector while requests run, self time attributed to
// functions and, through the source map (or esbuild's `// path` comments), to modules.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { SourceMap } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";
import { loadGet } from "./load.mjs";

const IDLE = new Set(["(idle)", "(program)", "(garbage collector)", "(root)"]);

/** A DevTools Protocol session with one of workerd's isolates: the first listed (the app's own, "core:user:…") unless `pick` says. */
export async function connect(inspectorPort, pick = (t) => Boolean(t.webSocketDebuggerUrl)) {
  const targets = await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json();
  const target = targets.find(pick) ?? targets[0];
  if (!target) throw new Error("workerd's inspector lists no target");
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  let id = 0;
  const pending = new Map();
  ws.on("message", (data) => {
    const msg = JSON.parse(String(data));
    if (msg.id && pending.has(msg.id)) {
      pending.get(msg.id)(msg);
      pending.delete(msg.id);
    }
  });
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const msgId = ++id;
      pending.set(msgId, (msg) => (msg.error ? reject(new Error(`${method}: ${msg.error.message}`)) : resolve(msg.result)));
      ws.send(JSON.stringify({ id: msgId, method, params }));
    });
  return { send, close: () => ws.close() };
}

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** A source path named alike for both apps: packages from node_modules/, app paths from their app's folder. */
function normalize(source, bundleFile) {
  const full = path.resolve(path.dirname(bundleFile), source);
  if (full.includes("/node_modules/")) return full.replace(/^.*\/node_modules\//, "node_modules/");
  return path.relative(ROOT, full).replace(/^bench\/\.baseline\/[^/]+\//, "");
}

/** (line, column) → the bundle's source module, by its source map, else by esbuild's `// path` comments. */
function moduleMap(bundleFile) {
  if (existsSync(`${bundleFile}.map`)) {
    const map = new SourceMap(JSON.parse(readFileSync(`${bundleFile}.map`, "utf8")));
    return (line, column) => {
      const entry = map.findEntry(line, column);
      return entry?.originalSource ? normalize(entry.originalSource, bundleFile) : "(bundle)";
    };
  }
  const marks = [];
  readFileSync(bundleFile, "utf8")
    .split("\n")
    .forEach((line, index) => {
      const match = /^\/\/ ((?:\.\.\/)*[\w@.\-/[\]$]+\.(?:m?[jt]sx?))$/.exec(line);
      if (match) marks.push([index, normalize(match[1], bundleFile)]);
    });
  return (line) => {
    let found = "(bundle)";
    for (const [start, name] of marks) {
      if (start > line) break;
      found = name;
    }
    return found;
  };
}

/** A module path's group: a package, the Worker's entry (named alike for both apps), or the app path. */
function groupOf(modulePath) {
  const pkg = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(modulePath);
  if (pkg) return pkg[1];
  return /^(functions\/|server\.js$|load-context\.ts$)/.test(modulePath) ? "(Worker entry)" : modulePath;
}

/** Profiles `work()` (resolving to its requests) in the isolate: CPU ms per request and the top functions and modules. */
export async function profileRequests({ inspectorPort, bundleFile, work, intervalUs = 100 }) {
  const cdp = await connect(inspectorPort);
  try {
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: intervalUs });
    await cdp.send("Profiler.start");
    const started = Date.now();
    const count = await work();
    if (!(count > 0)) throw new Error("the profiled work completed no requests");
    const wallMs = Date.now() - started;
    const { profile } = await cdp.send("Profiler.stop");
    // PROFILE_SAVE=<folder> keeps each raw profile (open it in DevTools) for questions the summary below cannot answer.
    if (process.env.PROFILE_SAVE)
      writeFileSync(path.join(process.env.PROFILE_SAVE, `${Date.now()}-${count}.cpuprofile`), JSON.stringify(profile));
    const lineToModule = moduleMap(bundleFile);
    const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
    const selfUs = new Map();
    profile.samples.forEach((nodeId, i) => selfUs.set(nodeId, (selfUs.get(nodeId) ?? 0) + (profile.timeDeltas[i] ?? 0)));
    const fns = new Map();
    const appFns = new Map();
    const groups = new Map();
    let busyUs = 0;
    for (const [nodeId, us] of selfUs) {
      const frame = byNode.get(nodeId).callFrame;
      const name = frame.functionName || "(anonymous)";
      if (IDLE.has(name)) continue;
      busyUs += us;
      const inBundle =
        frame.url &&
        bundleFile.endsWith(
          frame.url
            .replace(/^file:\/\//, "")
            .split("/")
            .pop(),
        );
      const module = inBundle ? lineToModule(frame.lineNumber, frame.columnNumber) : frame.url || "(native)";
      const key = `${name} (${module})`;
      fns.set(key, (fns.get(key) ?? 0) + us);
      if (module.startsWith("build/server/")) appFns.set(name, (appFns.get(name) ?? 0) + us);
      const group = groupOf(module);
      groups.set(group, (groups.get(group) ?? 0) + us);
    }
    const top = (map, n) =>
      [...map.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, n)
        .map(([name, us]) => ({
          name,
          msPerRequest: Math.round((us / 1000 / count) * 1000) / 1000,
          share: Math.round((us / busyUs) * 1000) / 10,
        }));
    return {
      count,
      busyMs: Math.round(busyUs / 1000),
      wallMs,
      cpuMsPerRequest: Math.round((busyUs / 1000 / count) * 1000) / 1000,
      topFunctions: top(fns, Number(process.env.PROFILE_TOP || 8)),
      topGroups: top(groups, groups.size),
      topAppFunctions: top(appFns, Number(process.env.PROFILE_TOP || 8)),
    };
  } finally {
    cdp.close();
  }
}

/** Profiles `server` while `pathname` is fetched under load for `duration` s; anything but 200 fails it. */
export async function profileGets(server, pathname, { duration, connections }) {
  let load = null;
  const result = await profileRequests({
    inspectorPort: server.inspectorPort,
    bundleFile: server.bundleFile,
    work: async () => {
      load = await loadGet(`${server.url}${pathname}`, { duration, connections });
      if (load.errors > 0 || Object.keys(load.statusCodes).some((code) => code !== "200"))
        throw new Error(`${pathname} answered ${JSON.stringify(load.statusCodes)} and ${load.errors} errors while profiled`);
      return load.requests;
    },
  });
  return { ...result, rps: load.rps };
}

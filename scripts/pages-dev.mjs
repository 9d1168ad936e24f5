// Runs `wrangler pages dev` the way every local entry point needs it: migrations applied first, in its
// own process group (it spawns workerd children), and stopped as a whole group. Nothing here edits
// node_modules: wrangler's dev-proxy fix is a patch-package patch applied by `npm install` (ADR 021).
import { spawnSync } from "node:child_process";
import { appendFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { spawnGroup } from "./process-group.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const WRANGLER = fileURLToPath(new URL("../node_modules/wrangler/bin/wrangler.js", import.meta.url));

/** Applies migrations/ to the local D1 under `persistTo` (default .wrangler/state). Throws on failure. */
export function applyLocalMigrations({ persistTo } = {}) {
  const args = [WRANGLER, "d1", "migrations", "apply", "DB", "--local"];
  if (persistTo) args.push("--persist-to", persistTo);
  const result = spawnSync(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, CI: "true" },
    encoding: "utf8",
  });
  if (result.status !== 0) {
    throw new Error(`wrangler d1 migrations apply failed:\n${result.stdout}\n${result.stderr}`);
  }
}

/**
 * Starts wrangler pages dev on `port` with `bindings` as vars/secrets and waits for /healthz.
 * `logFile` appends wrangler's output there instead of the console, and `onLine` sees each line of it.
 * Resolves to { url, stop }. `stop()` kills the whole process group.
 */
export async function startPagesDev({
  port,
  host = "127.0.0.1",
  bindings = {},
  persistTo,
  log = "inherit",
  logFile,
  onLine,
  onSpawn,
  timeoutMs = 120_000,
}) {
  const args = [
    WRANGLER,
    "pages",
    "dev",
    "./build/client",
    "--ip",
    host,
    "--port",
    String(port),
    "--inspector-port",
    "0",
    "--show-interactive-dev-session=false",
  ];
  if (persistTo) args.push("--persist-to", persistTo);
  for (const [key, value] of Object.entries(bindings)) {
    if (value !== undefined && value !== "") args.push("--binding", `${key}=${value}`);
  }
  const { pid, output, exited, stop } = spawnGroup(process.execPath, args, {
    ...(logFile ? { log: "pipe", onData: lineWriter(logFile, onLine) } : { log }),
    cwd: ROOT,
    // wrangler bundles the Function with NODE_ENV "development" in dev unless told otherwise, which
    // renders with React's development build; `wrangler pages deploy` uses "production". Locally, in
    // the tests and in the bench the Function is the one that is deployed (ADR 010, kept by ADR 011).
    env: { ...process.env, CI: "true", NO_COLOR: "1", NODE_ENV: "production" },
  });
  // Handed over before the wait, so a caller interrupted during start-up can still stop it.
  onSpawn?.(stop);

  const url = `http://${host}:${port}`;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited()) throw new Error(`wrangler pages dev exited early:\n${output()}`);
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) });
      if (res.ok) return { url, stop, pid, output };
    } catch {
      // not listening yet: try again until the deadline
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  await stop();
  throw new Error(`wrangler pages dev did not answer /healthz within ${timeoutMs} ms:\n${output()}`);
}

/** An onData handler that appends output to `file` and hands `onLine` each whole line. */
export function lineWriter(file, onLine) {
  let partial = "";
  return (chunk) => {
    appendFileSync(file, chunk);
    if (!onLine) return;
    const lines = (partial + chunk).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) onLine(line);
  };
}

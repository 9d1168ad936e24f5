// Runs `wrangler dev` as every local entry point needs it (npm start, the e2e layer, the bench): migrated, in its
// own process group stopped as a whole, its cron ticked on a timer, its simulated e-mails handed on.
import { spawnSync } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { spawnGroup } from "./process-group.mjs";
import { writeSettingsFile } from "./settings-file.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const WRANGLER = fileURLToPath(new URL("../node_modules/wrangler/bin/wrangler.js", import.meta.url));
/** The cron in wrangler.toml, as `wrangler dev --test-scheduled` takes it. */
const CRON = "* * * * *";

/** Applies the migrations to the local D1 under `persistTo`, for wrangler.toml or another `config`. Throws on failure. */
export function applyLocalMigrations({ persistTo, config } = {}) {
  const args = [WRANGLER, "d1", "migrations", "apply", "DB", "--local"];
  if (persistTo) args.push("--persist-to", persistTo);
  if (config) args.push("--config", config);
  const result = spawnSync(process.execPath, args, { cwd: ROOT, env: { ...process.env, CI: "true" }, encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(`wrangler d1 migrations apply failed:\n${result.stdout}\n${result.stderr}`);
  }
}

/**
 * Starts `wrangler dev` on `port` and waits for `readyPath`; the settings reach it in a file only this user can
 * read (ADR 111). Resolves to { url, tick, stop, pid, output }; `stop()` kills the whole process group.
 */
export async function startWorkerDev({
  port,
  host = "127.0.0.1",
  bindings = {},
  persistTo,
  config,
  readyPath = "/healthz",
  log = "pipe",
  logFile,
  onLine,
  onEmail,
  tickEveryMs = 0,
  onTick,
  onExit,
  onSpawn,
  timeoutMs = 120_000,
}) {
  const args = [WRANGLER, "dev", "--ip", host, "--port", String(port), "--inspector-port", "0"];
  args.push("--test-scheduled", "--show-interactive-dev-session=false");
  if (persistTo) args.push("--persist-to", persistTo);
  if (config) args.push("--config", config);
  // wrangler dev's proxy passes a 413 on instead of a 502 (ADR 098); a caller's value wins, and "" is unset.
  const given = Object.entries({ LOCAL_DRAIN_BODIES: "true", ...bindings }).filter(([, value]) => value !== undefined && value !== "");
  const settingsFile = writeSettingsFile(Object.fromEntries(given));
  args.push("--env-file", settingsFile.path);
  const emails = new Set();
  let emailNext = false;
  const watchLine = (line) => {
    const eml = emailNext ? /(\S+\.eml)\s*$/.exec(line) : null;
    if (eml && onEmail) {
      const handed = readFile(eml[1], "utf8")
        .then(onEmail, (e) => console.error(`could not read ${eml[1]}: ${e.message}`))
        .finally(() => emails.delete(handed));
      emails.add(handed);
    }
    emailNext = line.includes("send_email binding called with the following message:");
    onLine?.(line);
  };
  let stopping = false;
  const group = spawnGroup(process.execPath, args, {
    ...(logFile || onEmail || onLine ? { log: "pipe", onData: lineWriter(logFile, watchLine) } : { log }),
    cwd: ROOT,
    // wrangler bundles with React's development build unless NODE_ENV says otherwise: run what is deployed.
    env: { ...process.env, CI: "true", NO_COLOR: "1", NODE_ENV: "production" },
    onExit: (code) => {
      settingsFile.remove();
      if (!stopping) onExit?.(code);
    },
  });
  let ticker = null;
  const stop = async () => {
    stopping = true;
    ticker?.stop();
    await group.stop();
    settingsFile.remove();
  };
  // Handed over before the wait, so a caller interrupted during start-up can still stop it.
  onSpawn?.(stop);

  const url = `http://${host}:${port}`;
  const scheduledUrl = `${url}/__scheduled?cron=${encodeURIComponent(CRON)}`;
  /** Runs the cron once; resolves when its run and the e-mails it sent are done. */
  const tick = async () => {
    const res = await fetch(scheduledUrl, { signal: AbortSignal.timeout(180_000) });
    if (!res.ok) throw new Error(`the scheduled run answered ${res.status}`);
    // The log lines of this run's e-mails may trail the answer by a moment.
    await new Promise((r) => setTimeout(r, 300));
    await Promise.all(emails);
  };
  await waitUntilServing(group, `${url}${readyPath}`, { timeoutMs, stop, name: "wrangler dev" });
  if (tickEveryMs > 0) ticker = startTicker(tick, tickEveryMs, onTick);
  return { url, tick, stop, pid: group.pid, output: group.output };
}

/** Resolves once `readyUrl` answers 2xx; throws with the group's output when it exits first or after `timeoutMs`. */
export async function waitUntilServing(group, readyUrl, { timeoutMs = 120_000, stop = group.stop, name = "the server" } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (group.exited()) throw new Error(`${name} exited early:\n${group.output()}`);
    try {
      const res = await fetch(readyUrl, { signal: AbortSignal.timeout(5_000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${name} did not answer ${readyUrl} within ${timeoutMs} ms:\n${group.output()}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Calls `tick()` every `everyMs`, one run at a time; a failed tick goes to `onTick(error)` and the timer goes on. */
export function startTicker(tick, everyMs, onTick) {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    tick()
      .then(
        () => onTick?.(null),
        (error) => onTick?.(error),
      )
      .finally(() => (busy = false));
  }, everyMs);
  return { stop: () => clearInterval(timer) };
}

/** An onData handler that appends output to `file` (if any) and hands `onLine` each whole line. */
export function lineWriter(file, onLine) {
  let partial = "";
  return (chunk) => {
    if (file) appendFileSync(file, chunk);
    if (!onLine) return;
    const lines = (partial + chunk).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) onLine(line);
  };
}

/** The delivery queue's blocks in wrangler.toml, commented out until an owner turns them on (ADR 070). */
const QUEUE_BLOCKS = /^# \[\[queues\.producers\]\][\s\S]*?(?=\n\[)/m;

/** wrangler.toml with the delivery queue's blocks uncommented, as wrangler.queue.toml (git-ignored). Throws without them. */
export function writeQueueConfig() {
  const source = path.join(ROOT, "wrangler.toml");
  const text = readFileSync(source, "utf8");
  const blocks = QUEUE_BLOCKS.exec(text);
  if (!blocks) {
    if (/^\[\[queues\.producers\]\]/m.test(text)) return source;
    throw new Error("wrangler.toml has no delivery queue blocks to turn on");
  }
  const on = blocks[0]
    .split("\n")
    .map((line) => line.replace(/^# ?/, ""))
    .join("\n");
  const target = path.join(ROOT, "wrangler.queue.toml");
  writeFileSync(
    target,
    `# Generated by scripts/worker-dev.mjs from wrangler.toml, with the delivery queue on.\n${text.replace(blocks[0], on)}`,
  );
  return target;
}

// wrangler and Chromium spawn children of their own (workerd, renderers), so every long-running tool
// is started as the leader of a new process group and stopped as a whole: SIGTERM, then SIGKILL.
import { spawn } from "node:child_process";
import { createServer } from "node:net";

/** Spawns `command` as a process group's leader; `stop()` sends SIGTERM, then SIGKILL after `graceMs`. */
export function spawnGroup(command, args, { cwd, env = process.env, log = "pipe", onData, onExit, graceMs = 5_000 } = {}) {
  const child = spawn(command, args, {
    cwd,
    detached: true,
    env,
    stdio: log === "inherit" ? ["ignore", "inherit", "inherit"] : ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let exited = false;
  const collect = (chunk) => {
    output += chunk;
    onData?.(String(chunk));
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  child.on("exit", (code, signal) => {
    exited = true;
    onExit?.(code ?? signal);
  });

  /** Stops the whole group; resolves once the leader has exited. */
  const stop = () =>
    new Promise((resolve) => {
      if (exited) return resolve();
      child.once("exit", () => resolve());
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        return resolve();
      }
      setTimeout(() => {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }, graceMs).unref();
    });

  return { child, pid: child.pid, output: () => output, exited: () => exited, stop };
}

/** A loopback port nobody is using right now (several runs may share this machine). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

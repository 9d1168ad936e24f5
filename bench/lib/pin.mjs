// Cores for the bench (Linux, taskset): the servers under test share the last CPU, and the bench's own
// process (the load generator, the stand-in providers and the browser it starts) keeps the others. On
// two cores, without it, two servers of the same bundle measured side by side differed by 7.5 % in CPU
// per view over 40 paired rounds, a bias each process kept for its life; pinned, 0.5 % over 30 rounds.
// BENCH_PIN=0 turns it off; with one CPU or without taskset it does nothing.
import { spawnSync } from "node:child_process";
import os from "node:os";

const CPUS = os.availableParallelism();
const ON = process.env.BENCH_PIN !== "0" && CPUS >= 2 && spawnSync("taskset", ["-V"]).status === 0;
export const SERVER_CPU = CPUS - 1;

/** What the report says of it. */
export function pinning() {
  return ON ? { servers: `CPU ${SERVER_CPU}`, bench: CPUS === 2 ? "CPU 0" : `CPUs 0-${CPUS - 2}` } : null;
}

/** Puts this process (every thread) on the CPUs the servers do not use; its children inherit them. */
export function pinBench() {
  if (ON) spawnSync("taskset", ["-a", "-cp", CPUS === 2 ? "0" : `0-${CPUS - 2}`, String(process.pid)], { stdio: "ignore" });
}

/** Puts every process (and thread) of the process group `pgid` on the servers' CPU. */
export function pinServer(pgid) {
  if (!ON) return;
  const pids = spawnSync("pgrep", ["-g", String(pgid)], { encoding: "utf8" })
    .stdout.split("\n")
    .filter(Boolean);
  for (const pid of pids) spawnSync("taskset", ["-a", "-cp", String(SERVER_CPU), pid], { stdio: "ignore" });
}

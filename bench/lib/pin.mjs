// Cores for the load runs (Linux, taskset): the servers' workerd share the last CPU, the load generator and the
// stand-ins the others, which took two servers of one bundle from 7.5 % apart in CPU per view to 0.5 % (ADR 107).
// BENCH_PIN=0 turns it off; with one CPU or without taskset it does nothing.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";

const CPUS = os.availableParallelism();
const ON = process.env.BENCH_PIN !== "0" && CPUS >= 2 && spawnSync("taskset", ["-V"]).status === 0;
const SERVER_CPU = String(CPUS - 1);
const BENCH_CPUS = CPUS === 2 ? "0" : `0-${CPUS - 2}`;

/** What the report says of it. */
export function pinning() {
  return ON ? { servers: `CPU ${SERVER_CPU}`, bench: CPUS === 2 ? "CPU 0" : `CPUs ${BENCH_CPUS}` } : null;
}

function groupPids(pgid) {
  return spawnSync("pgrep", ["-g", String(pgid)], { encoding: "utf8" })
    .stdout.split("\n")
    .filter(Boolean);
}

function pin(pid, cpus) {
  spawnSync("taskset", ["-a", "-cp", cpus, String(pid)], { stdio: "ignore" });
}

/** Puts this process and the process groups `pgids` (every thread) on the CPUs the servers do not use. */
export function pinBench(pgids = []) {
  if (!ON) return;
  pin(process.pid, BENCH_CPUS);
  for (const pgid of pgids) for (const pid of groupPids(pgid)) pin(pid, BENCH_CPUS);
}

/** Puts every workerd of the process group `pgid` on the servers' CPU. */
export function pinServer(pgid) {
  if (!ON) return;
  for (const pid of groupPids(pgid)) {
    let name = "";
    try {
      name = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
    } catch {
      continue; // gone since the listing
    }
    if (name === "workerd") pin(pid, SERVER_CPU);
  }
}

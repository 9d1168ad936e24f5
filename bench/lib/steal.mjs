// How much of this VM's CPU time the hypervisor gave to other guests (steal, from /proc/stat). On a
// shared host it explains figures that move between runs while the code stays the same.
import { readFileSync } from "node:fs";

/** The machine's CPU time counters (all CPUs, in ticks): total and stolen. */
export function cpuTicks() {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  return { total: fields.slice(0, 8).reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
}

/** Steal since `start` (from cpuTicks), in percent of all CPU time, to one decimal. */
export function stealSince(start) {
  const end = cpuTicks();
  return Math.round(((end.steal - start.steal) / Math.max(1, end.total - start.total)) * 1000) / 10;
}

// What else the machine was doing while the bench ran, from /proc (Linux): the share of this VM's CPU
// time the hypervisor gave to other guests (steal), and the share other processes on this VM used
// (everything busy minus the bench's own process tree). On a shared host they explain figures that
// move between runs while the code stays the same.
import { readFileSync } from "node:fs";

/** The machine's CPU time counters (all CPUs, in ticks): total, busy and stolen, and the bench's own tree. */
export function cpuTicks() {
  const f = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  const own = readFileSync("/proc/self/stat", "utf8");
  const o = own
    .slice(own.lastIndexOf(") ") + 2)
    .split(" ")
    .map(Number);
  return {
    total: f.slice(0, 8).reduce((a, b) => a + b, 0),
    busy: f[0] + f[1] + f[2] + f[5] + f[6],
    steal: f[7] ?? 0,
    // utime, stime, and the same of every child waited for (each child's own children included)
    bench: o[11] + o[12] + o[13] + o[14],
  };
}

/** Steal since `start` (from cpuTicks), in percent of all CPU time, to one decimal. */
export function stealSince(start) {
  const end = cpuTicks();
  return Math.round(((end.steal - start.steal) / Math.max(1, end.total - start.total)) * 1000) / 10;
}

/**
 * Since `start`: steal, and the share of all CPU time other processes used (busy time minus the
 * bench's own tree, which counts only once every server it started has been stopped and reaped).
 */
export function hostSince(start) {
  const end = cpuTicks();
  const total = Math.max(1, end.total - start.total);
  const pct = (ticks) => Math.round((ticks / total) * 1000) / 10;
  return {
    stealPercent: pct(end.steal - start.steal),
    benchPercent: pct(end.bench - start.bench),
    otherPercent: pct(Math.max(0, end.busy - start.busy - (end.bench - start.bench))),
  };
}

// What else the machine did while the bench ran (/proc): CPU stolen by other guests, idle, and used by processes
// outside the bench's tree, which explain figures that move while the code stays the same.
import { readdirSync, readFileSync } from "node:fs";

/** pid → { ppid, ticks }: each process's CPU time, its reaped children's included (utime, stime, cutime, cstime). */
function processes() {
  const list = new Map();
  for (const pid of readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
    let stat;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // gone between the listing and the read
    }
    const f = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
    list.set(Number(pid), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) });
  }
  return list;
}

/** CPU ticks of this process's whole tree, reaped children included. */
function treeTicks() {
  const list = processes();
  const children = new Map();
  for (const [pid, p] of list) children.set(p.ppid, [...(children.get(p.ppid) ?? []), pid]);
  let ticks = 0;
  const queue = [process.pid];
  while (queue.length > 0) {
    const pid = queue.pop();
    ticks += list.get(pid)?.ticks ?? 0;
    queue.push(...(children.get(pid) ?? []));
  }
  return ticks;
}

/** The machine's CPU time counters (all CPUs, in ticks): total, busy, idle, stolen, and the bench's own tree. */
export function cpuTicks() {
  const f = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  return {
    total: f.slice(0, 8).reduce((a, b) => a + b, 0),
    busy: f[0] + f[1] + f[2] + f[5] + f[6],
    idle: f[3] + f[4],
    steal: f[7] ?? 0,
    bench: treeTicks(),
  };
}

/** Since `start` (from cpuTicks), in percent of all CPU time: steal, idle, the bench's tree, and other processes. */
export function hostSince(start) {
  const end = cpuTicks();
  const total = Math.max(1, end.total - start.total);
  const pct = (ticks) => Math.round((ticks / total) * 1000) / 10;
  return {
    stealPercent: pct(end.steal - start.steal),
    idlePercent: pct(end.idle - start.idle),
    benchPercent: pct(end.bench - start.bench),
    otherPercent: pct(Math.max(0, end.busy - start.busy - (end.bench - start.bench))),
  };
}

// The bench's statistics, in one place: medians over rounds, and ratios paired round by round.

/** The median (the upper one of an even count), or null for no values. */
export function median(values) {
  const list = values.filter((v) => v !== null && v !== undefined && Number.isFinite(v));
  if (list.length === 0) return null;
  return [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
}

/** Rounded to `digits` decimals; null stays null. */
export function round(value, digits = 2) {
  if (value === null || value === undefined || !Number.isFinite(value)) return null;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** One subject's rounds: medians of req/s, latency and CPU, statuses and errors summed, per-round figures kept. */
export function combineRounds(list) {
  const statusCodes = {};
  for (const r of list) for (const [code, n] of Object.entries(r.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  return {
    rps: median(list.map((r) => r.rps)),
    p50: median(list.map((r) => r.p50)),
    p99: median(list.map((r) => r.p99)),
    cpuMs: round(median(list.map((r) => r.cpuMs)), 3),
    requests: list.reduce((n, r) => n + r.requests, 0),
    errors: list.reduce((n, r) => n + r.errors, 0),
    statusCodes,
    perRound: list.map((r) => r.rps),
    cpuPerRound: list.map((r) => round(r.cpuMs, 3)),
  };
}

/** `a` against `b` paired round by round, the median ratio: req/s a ÷ b ("perRound"), CPU b ÷ a ("cpuPerRound"). */
export function pairedRatio(a, b, key = "perRound") {
  const perRound = a[key].map((value, i) => {
    const [num, den] = key === "cpuPerRound" ? [b[key][i], value] : [value, b[key][i]];
    return den > 0 && num !== null ? round(num / den) : null;
  });
  return { median: median(perRound), perRound };
}

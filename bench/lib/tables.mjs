// Markdown tables the measurement modules share.
import { pairedRatio } from "./stats.mjs";

const list = (values) => values.map((v) => v ?? "–").join(" / ");
const codes = (load) =>
  Object.entries(load.statusCodes)
    .map(([code, n]) => `${n}×${code}`)
    .join(" ") + (load.errors ? `, ${load.errors} errors` : "");

/**
 * One row per load result: req/s, latency and workerd CPU per request (each round in brackets), and,
 * where a row names what it is compared `against`, both ratios paired round by round (CPU as
 * reference ÷ this, so higher is better for both).
 */
export function loadTable(rows) {
  const lines = [
    "| Request | req/s (per round) | p50 / p99 ms | workerd CPU ms per request (per round) | Statuses | req/s ratio | CPU ratio |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const { label, load, against } of rows) {
    const ratio = (key) => {
      if (!against) return "";
      const r = pairedRatio(load, against, key);
      return `${r.median ?? "–"} (${list(r.perRound)})`;
    };
    lines.push(
      `| ${label} | ${load.rps} (${list(load.perRound)}) | ${load.p50} / ${load.p99} | ${load.cpuMs ?? "–"} (${list(load.cpuPerRound)}) | ${codes(load)} | ${ratio("perRound")} | ${ratio("cpuPerRound")} |`,
    );
  }
  return lines;
}

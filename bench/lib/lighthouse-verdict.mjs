// When a Lighthouse score is the page's and when the host's: its 4x CPU slowdown is calibrated for a high-end
// desktop (benchmark index 1500–2000, Lighthouse's docs/throttling.md), so a run on a slower or busier host
// (lib/host.mjs) is not counted but run again; a run that meets both counts whatever it scores.
import { median } from "./stats.mjs";

/** The low end of the class the 4x slowdown is calibrated for (Lighthouse warns only below 1000); LH_MIN_INDEX overrides. */
export const MIN_BENCHMARK_INDEX = Number(process.env.LH_MIN_INDEX || 1500);
/** Other processes' most CPU during a counted run, in % of the machine (half a core of 2); LH_MAX_OTHER overrides. */
export const MAX_OTHER_PERCENT = Number(process.env.LH_MAX_OTHER || 25);
/** Tries per counted run: a host that stays too slow ends as "host too slow", never as a score. */
export const MAX_TRIES = 3;
export const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"];

/** Why a run's host could not measure the page, or null when it could. */
export function hostTooSlow(run, { min = MIN_BENCHMARK_INDEX, maxOther = MAX_OTHER_PERCENT } = {}) {
  if (run.benchmarkIndex < min) return `index ${run.benchmarkIndex} < ${min}`;
  if (run.otherPercent > maxOther) return `other load ${run.otherPercent} % > ${maxOther} %`;
  return null;
}

/** Runs `runOnce()` until a run's host could measure the page, at most `tries` times: { run (or null), slow }. */
export async function runCounted(runOnce, { tries = MAX_TRIES, onSlow = () => {}, ...limits } = {}) {
  const slow = [];
  for (let attempt = 1; attempt <= tries; attempt++) {
    const run = await runOnce();
    const why = hostTooSlow(run, limits);
    if (!why) return { run, slow };
    slow.push(why);
    onSlow(why, attempt);
  }
  return { run: null, slow };
}

/** One page's medians over its counted runs, and its verdict: "100", "below 100" or "host too slow". */
export function judgePage(rounds) {
  const runs = rounds.map((r) => r.run).filter(Boolean);
  const slow = rounds.flatMap((r) => r.slow);
  if (runs.length === 0) return { runs, slow, median: null, verdict: "host too slow" };
  const medians = Object.fromEntries(CATEGORIES.map((c) => [c, median(runs.map((run) => run.scores[c]))]));
  return { runs, slow, median: medians, verdict: CATEGORIES.every((c) => medians[c] === 100) ? "100" : "below 100" };
}

/** "met", "not met" or "not measured" over the pages; nothing counts as met unless the slowed `trial` came out below 100. */
export function judgeTarget(pages, trial) {
  if (pages.some((p) => p.verdict === "below 100")) return "not met";
  if (pages.some((p) => p.verdict === "host too slow")) return "not measured";
  if (trial && trial.verdict !== "below 100") return "not measured";
  return "met";
}

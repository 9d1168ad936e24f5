// When a Lighthouse score is the page's and when it is the host's. Lighthouse scales the page's main-
// thread work by a fixed 4x CPU slowdown, calibrated for a host in its "high-end desktop" class
// (benchmark index 1500–2000, Lighthouse's docs/throttling.md); on a slower or busier host the same
// page collects blocking time it did not cause. Each run records the index Lighthouse measured before
// loading the page (lhr.environment.benchmarkIndex) and the share of the machine's CPU that processes
// other than the bench's used during the run (lib/host.mjs), since the index is taken once and load
// that starts later does not show in it. A run below MIN_BENCHMARK_INDEX or above MAX_OTHER_PERCENT
// is not counted: the step says so and runs the page again, at most MAX_TRIES times per counted run. A
// run that meets both counts whatever it scores, so a page that really got slower still fails.
import { median } from "./stats.mjs";

/**
 * The low end of the class Lighthouse's 4x slowdown is calibrated for (docs/throttling.md). Lighthouse
 * itself warns only below 1000, a value its source calls conservative, to be raised toward the true
 * target. LH_MIN_INDEX overrides it; the report prints the value used.
 */
export const MIN_BENCHMARK_INDEX = Number(process.env.LH_MIN_INDEX || 1500);
/**
 * The most CPU other processes may take during a counted run, in percent of the machine: 25 is half a
 * core of a 2-core VM, while Chromium, Lighthouse and the server share the rest. LH_MAX_OTHER overrides it.
 */
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

/**
 * Runs `runOnce()` (resolves to { benchmarkIndex, otherPercent, scores, … }) until a run's host could
 * measure the page, at most `tries` times. Resolves to { run, slow }: `run` is the counted run or null
 * when every try met a slow host; `slow` says why each run not counted was not.
 */
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

/**
 * One page's result from its rounds (each a runCounted result): the median per category over the
 * counted runs, and a verdict: "100" (every category's median is 100), "below 100", or "host too
 * slow" when no run counted.
 */
export function judgePage(rounds) {
  const runs = rounds.map((r) => r.run).filter(Boolean);
  const slow = rounds.flatMap((r) => r.slow);
  if (runs.length === 0) return { runs, slow, median: null, verdict: "host too slow" };
  const medians = Object.fromEntries(CATEGORIES.map((c) => [c, median(runs.map((run) => run.scores[c]))]));
  return { runs, slow, median: medians, verdict: CATEGORIES.every((c) => medians[c] === 100) ? "100" : "below 100" };
}

/**
 * The target over Gatepost's pages: "met" when every page's verdict is "100", "not met" when any page
 * scored below, otherwise "not measured" (a page met only slow hosts). `trial` is the page with an
 * injected slow script: unless it came out "below 100", the step has not shown it can fail, and
 * nothing it reported is taken as met.
 */
export function judgeTarget(pages, trial) {
  if (pages.some((p) => p.verdict === "below 100")) return "not met";
  if (pages.some((p) => p.verdict === "host too slow")) return "not measured";
  if (trial && trial.verdict !== "below 100") return "not measured";
  return "met";
}

// The one loop that alternates a measurement's subjects, every other round reversed, so the shared machine's load
// hits all alike (ADR 104); each figure is a median over the rounds.
import { combineRounds } from "./stats.mjs";

/** Throws unless a load run answered only `expect`, without errors: a run with refusals measured the wrong path. */
export function checkStatuses(label, result, expect) {
  const other = Object.keys(result.statusCodes).filter((code) => code !== expect);
  if (other.length > 0 || result.errors > 0 || result.requests === 0) {
    throw new Error(`${label}: expected only ${expect}, got ${JSON.stringify(result.statusCodes)} and ${result.errors} errors`);
  }
}

/**
 * Runs `trials` for `rounds` rounds after `warmUpRounds` uncounted ones, `between()` before each; with `together`,
 * each round runs every trial at once, each on its own server (ADR 104). Resolves to { name: [result per round] }.
 */
export async function alternateRounds(
  trials,
  { rounds, warmUpRounds = 0, between = async () => {}, expect = {}, log = () => {}, label = "", together = false },
) {
  const results = Object.fromEntries(Object.keys(trials).map((name) => [name, []]));
  const keep = (round, name, result) => {
    if (expect[name]) checkStatuses(`${label} ${name}`, result, expect[name]);
    if (round >= 0) results[name].push(result);
  };
  for (let round = -warmUpRounds; round < rounds; round++) {
    log(round < 0 ? `${label} warm-up round` : `${label} round ${round + 1}/${rounds}${together ? " (subjects at once)" : ""}`);
    const order = Object.entries(trials);
    if (together) {
      await between();
      const done = await Promise.all(order.map(async ([name, trial]) => [name, await trial()]));
      for (const [name, result] of done) keep(round, name, result);
      continue;
    }
    for (const [name, trial] of round % 2 === 0 ? order : order.reverse()) {
      await between(name);
      keep(round, name, await trial());
    }
  }
  return results;
}

/** alternateRounds for load runs, combined into medians, after one uncounted round under load (V8 still compiling). */
export async function alternateLoads(trials, options) {
  const results = await alternateRounds(trials, { warmUpRounds: 1, ...options });
  return Object.fromEntries(Object.entries(results).map(([name, list]) => [name, combineRounds(list)]));
}

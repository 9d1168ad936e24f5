// The one loop that alternates the subjects of a measurement: every subject once per round, every
// other round in reverse order, so a change in the shared machine's load hits all of them alike and
// no subject always follows the same one. Each figure is then a median over the rounds (stats.mjs).
import { combineRounds } from "./stats.mjs";

/**
 * Throws unless `result` (a load run) answered only `expect`, with no errors and at least one
 * request: a run in which anything was refused measures the wrong path and must never be reported.
 */
export function checkStatuses(label, result, expect) {
  const other = Object.keys(result.statusCodes).filter((code) => code !== expect);
  if (other.length > 0 || result.errors > 0 || result.requests === 0) {
    throw new Error(`${label}: expected only ${expect}, got ${JSON.stringify(result.statusCodes)} and ${result.errors} errors`);
  }
}

/**
 * Runs `trials` ({ name: async () => result }) for `rounds` rounds, after `warmUpRounds` uncounted
 * ones. `between()` runs before every trial (let the last one's after-response work finish, make the
 * providers forget it). `expect` maps a trial's name to the one status its results may carry
 * (checked after every run, warm-up too), when they are load runs. With `together`, each round runs
 * every trial at once instead, for subjects on servers of their own (each trial measures its own
 * server): whatever the shared core's speed does during a round, it does to all of them alike. With the
 * servers on one core (lib/pin.mjs), two servers of the same bundle measured so differed by 0.5 % in
 * CPU per view over 30 rounds, where in turn they had differed by 7.5 %. Resolves to { name: [result
 * per counted round] }.
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

/**
 * alternateRounds for load runs, each subject's rounds combined into medians (stats.combineRounds).
 * One uncounted round under the same load comes first: a few sequential requests leave V8 still
 * compiling the app's hot paths, and the first rounds under load ran up to half as slow again
 * (docs/performance.md, Method).
 */
export async function alternateLoads(trials, options) {
  const results = await alternateRounds(trials, { warmUpRounds: 1, ...options });
  return Object.fromEntries(Object.entries(results).map(([name, list]) => [name, combineRounds(list)]));
}

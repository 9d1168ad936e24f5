import type { CharSet, PatternNode } from "~/lib/forms/pattern-syntax";

// A backtracking matcher over a parsed pattern, as JavaScript's RegExp runs one: depth first, greedy
// repetitions trying one more turn before leaving, alternatives in order, an empty turn of a loop
// refused once its minimum is met. It counts its steps, so a test can see work grow with the input
// without reading a clock, and gives up past `limit` steps.

export class StepLimit extends Error {}

function has(set: CharSet, cp: number): boolean {
  return set.some(([lo, hi]) => cp >= lo && cp <= hi);
}

/** Whether `text` matches `node` as a whole, and the steps a backtracking matcher took to say so. */
export function backtrackingMatch(node: PatternNode, text: string, limit = 10_000_000): { matched: boolean; steps: number } {
  const cps = [...text].map((c) => c.codePointAt(0)!);
  let steps = 0;
  const match = (n: PatternNode, at: number, next: (at: number) => boolean): boolean => {
    if (++steps > limit) throw new StepLimit();
    switch (n.kind) {
      case "set":
        return at < cps.length && has(n.set, cps[at]) && next(at + 1);
      case "seq": {
        const from = (i: number, pos: number): boolean =>
          i === n.items.length ? next(pos) : match(n.items[i], pos, (p) => from(i + 1, p));
        return from(0, at);
      }
      case "alt":
        return n.branches.some((branch) => match(branch, at, next));
      case "repeat": {
        const turn = (count: number, pos: number): boolean => {
          if (n.max === null || count < n.max) {
            const more = match(n.body, pos, (p) => (p === pos && count >= n.min ? false : turn(count + 1, p)));
            if (more) return true;
          }
          return count >= n.min && next(pos);
        };
        return turn(0, at);
      }
    }
  };
  const matched = match(node, 0, (at) => at === cps.length);
  return { matched, steps };
}

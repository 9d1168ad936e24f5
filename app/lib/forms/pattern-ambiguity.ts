import { intersects, type CharSet, type PatternNode } from "~/lib/forms/pattern-syntax";

// Linear in every engine (ADR 089): a backtracking validator is slow only where a pattern offers two ways on at
// the same character. So, read as its position automaton (Glushkov's), the next positions' character sets are
// disjoint everywhere, no position is reached by two routes, and nothing repeated or alternative matches the
// empty string two ways. tests/unit/pattern-language.test.ts counts a backtracking matcher's steps.

interface Info {
  nullable: boolean;
  first: number[];
  last: number[];
}

class Ambiguous extends Error {}

/** Why `node` could make a backtracking matcher slow, in words for the form's author; null when it cannot. */
export function ambiguityProblem(node: PatternNode): string | null {
  const sets: CharSet[] = [];
  const follow: number[][] = [];
  const refuse = (problem: string): never => {
    throw new Ambiguous(problem);
  };
  const link = (from: number[], to: number[]) => {
    for (const p of from) {
      for (const q of to) {
        if (follow[p].includes(q)) refuse("can match the same text in more than one way (such as (a+)+)");
        follow[p].push(q);
      }
    }
  };

  function walk(n: PatternNode): Info {
    switch (n.kind) {
      case "set":
        sets.push(n.set);
        follow.push([]);
        return { nullable: false, first: [sets.length - 1], last: [sets.length - 1] };
      case "seq": {
        let info: Info = { nullable: true, first: [], last: [] };
        for (const item of n.items) {
          const next = walk(item);
          link(info.last, next.first);
          info = {
            nullable: info.nullable && next.nullable,
            first: info.nullable ? [...info.first, ...next.first] : info.first,
            last: next.nullable ? [...info.last, ...next.last] : next.last,
          };
        }
        return info;
      }
      case "alt": {
        const branches = n.branches.map(walk);
        if (branches.filter((b) => b.nullable).length > 1) refuse("has two alternatives that can both match nothing");
        return {
          nullable: branches.some((b) => b.nullable),
          first: branches.flatMap((b) => b.first),
          last: branches.flatMap((b) => b.last),
        };
      }
      case "repeat": {
        if (n.max === 0) return { nullable: true, first: [], last: [] };
        const body = walk(n.body);
        if (body.nullable) refuse("repeats something that can match nothing (such as (a?)* or (a|)+)");
        if (n.max === null || n.max > 1) link(body.last, body.first);
        return { nullable: n.min === 0, first: body.first, last: body.last };
      }
    }
  }

  try {
    const root = walk(node);
    for (const next of [root.first, ...follow]) {
      for (let i = 0; i < next.length; i++) {
        for (let j = i + 1; j < next.length; j++) {
          if (intersects(sets[next[i]], sets[next[j]])) {
            refuse(
              "can take the same character two ways at one point (such as (\\w|\\d)*, a*a or a*a*), which can make receivers' backtracking validators take exponential time; make each choice start with different characters",
            );
          }
        }
      }
    }
    return null;
  } catch (error) {
    if (error instanceof Ambiguous) return error.message;
    throw error;
  }
}

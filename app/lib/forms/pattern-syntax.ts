// The shared pattern language (ADR 089): the regular-expression syntax RE2 and ECMAScript (`u`, `v`) read alike.
// Left out is what they read differently: `.`, \s \S, \b, \p{…}, \u and \x escapes, flags, lookaround,
// backreferences, lazy quantifiers, inner anchors. Parsing yields a tree of code-point sets (pattern-ambiguity.ts).

/** Inclusive code-point ranges, sorted and disjoint. */
export type CharSet = ReadonlyArray<readonly [number, number]>;

export type PatternNode =
  | { kind: "set"; set: CharSet }
  | { kind: "seq"; items: PatternNode[] }
  | { kind: "alt"; branches: PatternNode[] }
  | { kind: "repeat"; body: PatternNode; min: number; max: number | null };

export type ParsedPattern = { ok: true; node: PatternNode } | { ok: false; problem: string };

const MAX_CODE_POINT = 0x10ffff;
export const MAX_REPEAT = 1000;

const DIGIT: CharSet = [[0x30, 0x39]];
const WORD: CharSet = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
const SHORTHANDS: Record<string, CharSet> = { d: DIGIT, D: complement(DIGIT), w: WORD, W: complement(WORD) };
const CONTROL_ESCAPES: Record<string, number> = { n: 0x0a, r: 0x0d, t: 0x09 };
/** Escaped, these are literal in RE2 and in `u` and `v` expressions, inside classes and out. */
const SYNTAX = new Set("^$\\.*+?()[]{}|/");
/** Unescaped inside a `v` class these are syntax (`-` only as a range's dash). */
const CLASS_SYNTAX = new Set("()[]{}/-\\|");
/** Doubled inside a `v` class these are reserved operators (&&, --, !! …). */
const CLASS_DOUBLES = new Set("&!#$%*+,.:;<=>?@^`~");

/** A sorted, merged copy of `ranges`. */
export function normalise(ranges: ReadonlyArray<readonly [number, number]>): CharSet {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [lo, hi] of sorted) {
    const last = out.at(-1);
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

export function complement(set: CharSet): CharSet {
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [lo, hi] of normalise(set)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

export function intersects(a: CharSet, b: CharSet): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i][1] < b[j][0]) i++;
    else if (b[j][1] < a[i][0]) j++;
    else return true;
  }
  return false;
}

class Refusal extends Error {}

/** Parses `pattern` in the shared language; the problem names the first thing outside it. Never throws. */
export function parsePattern(pattern: string): ParsedPattern {
  const chars = [...pattern];
  let at = 0;
  const refuse = (problem: string): never => {
    throw new Refusal(problem);
  };
  const peek = (offset = 0) => chars[at + offset];

  function alternation(depth: number): PatternNode {
    const branches = [sequence(depth)];
    while (peek() === "|") {
      at++;
      branches.push(sequence(depth));
    }
    return branches.length === 1 ? branches[0] : { kind: "alt", branches };
  }

  function sequence(depth: number): PatternNode {
    const items: PatternNode[] = [];
    // ^ and $ only where the whole value begins and ends, which they mean there anyway.
    if (peek() === "^" && depth === 0) at++;
    while (at < chars.length && peek() !== "|" && peek() !== ")") {
      if (peek() === "$" && depth === 0 && (at + 1 === chars.length || chars[at + 1] === "|")) {
        at++;
        break;
      }
      items.push(quantified(atom(depth)));
    }
    return items.length === 1 ? items[0] : { kind: "seq", items };
  }

  function atom(depth: number): PatternNode {
    const c = peek();
    if (c === "(") {
      at++;
      if (peek() === "?") {
        if (peek(1) !== ":") refuse("uses lookaround, a named group or flags, which the shared pattern language leaves out");
        at += 2;
      }
      const inner = alternation(depth + 1);
      if (peek() !== ")") refuse("has a ( without its )");
      at++;
      return inner;
    }
    if (c === "[") return { kind: "set", set: charClass() };
    if (c === "\\") return { kind: "set", set: escape(false) };
    if (c === ".")
      refuse(
        "uses `.`, which RE2 and JavaScript read differently (line separators such as U+2028); write the characters you mean, such as [^@]",
      );
    if (c === "^" || c === "$") refuse("uses ^ or $ inside; a pattern always matches the whole value, so leave them out");
    if ("*+?{".includes(c)) refuse(`has a quantifier (${c}) with nothing before it to repeat`);
    if ("]})".includes(c)) refuse(`has an unmatched ${c}; write \\${c} for the character`);
    at++;
    return { kind: "set", set: literal(c) };
  }

  function literal(c: string): CharSet {
    const cp = c.codePointAt(0)!;
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) refuse("holds a control character; write \\n, \\r or \\t");
    if (cp >= 0xd800 && cp <= 0xdfff) refuse("holds half of a surrogate pair");
    return [[cp, cp]];
  }

  function escape(inClass: boolean): CharSet {
    at++;
    const c = peek();
    if (c === undefined) return refuse("ends with a lone \\");
    at++;
    if (SHORTHANDS[c]) return SHORTHANDS[c];
    if (c in CONTROL_ESCAPES) return [[CONTROL_ESCAPES[c], CONTROL_ESCAPES[c]]];
    if (SYNTAX.has(c) || (inClass && c === "-")) return [[c.codePointAt(0)!, c.codePointAt(0)!]];
    if (c === "s" || c === "S")
      refuse(
        "uses \\s or \\S, which RE2 and JavaScript read differently (U+00A0, U+FEFF); write the characters you mean, such as [ \\t] or [^ \\t]",
      );
    return refuse(`uses \\${c}, which the shared pattern language leaves out (it has \\d \\D \\w \\W \\n \\r \\t and escaped punctuation)`);
  }

  function charClass(): CharSet {
    at++;
    const negated = peek() === "^";
    if (negated) at++;
    const ranges: Array<readonly [number, number]> = [];
    if (peek() === "]") refuse("has an empty class []");
    while (peek() !== "]") {
      if (at >= chars.length) refuse("has a [ without its ]");
      const start = classAtom();
      if (peek() === "-" && peek(1) !== "]") {
        at++;
        const end = classAtom();
        if (start.length !== 1 || end.length !== 1 || start[0][0] !== start[0][1] || end[0][0] !== end[0][1]) {
          refuse("has a range with a class such as \\d at one end");
        }
        const [lo, hi] = [start[0][0], end[0][0]];
        if (hi > 0x7f) refuse("has a range beyond ASCII; list such characters one by one");
        if (lo > hi) refuse("has a range whose ends are in the wrong order");
        ranges.push([lo, hi]);
      } else ranges.push(...start);
    }
    at++;
    const set = normalise(ranges);
    return negated ? complement(set) : set;
  }

  function classAtom(): CharSet {
    const c = peek();
    if (c === "\\") return escape(true);
    if (CLASS_SYNTAX.has(c)) refuse(`has ${c} unescaped inside [ ]; write \\${c}`);
    if (CLASS_DOUBLES.has(c) && peek(1) === c)
      refuse(`has ${c}${c} inside [ ], an operator in JavaScript's v mode; list the character once`);
    at++;
    return literal(c);
  }

  function quantified(node: PatternNode): PatternNode {
    let min: number;
    let max: number | null;
    const c = peek();
    if (c === "?") [min, max] = [0, 1];
    else if (c === "*") [min, max] = [0, null];
    else if (c === "+") [min, max] = [1, null];
    else if (c === "{") {
      const match = /^\{(\d{1,4})(,(\d{0,4}))?\}/.exec(chars.slice(at, at + 12).join(""));
      if (!match) return refuse("has a { that is not a repetition such as {2} or {1,3}; write \\{ for the character");
      min = Number(match[1]);
      max = match[2] === undefined ? min : match[3] === "" ? null : Number(match[3]);
      if (min > MAX_REPEAT || (max !== null && max > MAX_REPEAT)) refuse(`repeats more than ${MAX_REPEAT} times`);
      if (max !== null && max < min) refuse("has a repetition {n,m} with m below n");
      at += match[0].length - 1;
    } else return node;
    at++;
    if (peek() === "?" || peek() === "+") refuse("has a lazy or possessive quantifier; a whole-value match needs neither");
    if (peek() === "*" || peek() === "{") refuse("repeats a repetition directly; group it first, as in (a{2})+");
    return { kind: "repeat", body: node, min, max };
  }

  try {
    const node = alternation(0);
    if (at < chars.length) refuse(`has an unmatched ${peek()}`);
    return { ok: true, node };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, problem: error.message };
    throw error;
  }
}

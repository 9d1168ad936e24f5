import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error - plain ESM script, also run by hand (`node scripts/comment-share.mjs`)
import { countLines, measure } from "../../scripts/comment-share.mjs";

// Words that carry their weight: comments stay a short why (at most a tenth of app/'s code lines), and
// every decision the code or the docs cite is a file in docs/decisions/.
const ROOT = path.resolve(__dirname, "../..");
const DECISIONS = path.join(ROOT, "docs/decisions");
const CITING = ["app", "functions", "scripts", "bench", "dev", "tests", "patches", "migrations", "docs", ".ci"];
const CITING_ROOT_FILES = /\.(ts|js|mjs|md|toml)$/;
/** Parsing every file of app/ takes seconds on a busy machine. */
const PARSE_ALL_MS = 60_000;
const TEXT = /\.(ts|tsx|js|mjs|cjs|jsx|css|md|sql|patch|toml)$|^run$/;

/** Each decision a text cites: "ADR 12", "ADR-089", "ADRs 023 and 054", "docs/decisions/070", "(decisions/NNN-title.md)". */
function findCitations(text: string): { cited: string; number: string; file?: string }[] {
  const found: { cited: string; number: string; file?: string }[] = [];
  for (const match of text.matchAll(/\bADRs?[ -]?(\d{1,3})((?:\s*(?:,|and|&|\/)\s*\d{2,3}\b)*)/g)) {
    for (const n of [match[1], ...(match[2].match(/\d+/g) ?? [])]) found.push({ cited: match[0], number: n.padStart(3, "0") });
  }
  for (const match of text.matchAll(/(?:\bdecisions\/|\]\()(\d{3})(-[a-z0-9-]+\.md)?/g)) {
    found.push({ cited: match[0], number: match[1], file: match[2] && `${match[1]}${match[2]}` });
  }
  return found;
}

/** The citations in the texts that name no decision there is. */
function findMissing(texts: Map<string, string>, decisions: string[]): string[] {
  const numbers = new Set(decisions.map((name) => name.slice(0, 3)));
  return [...texts].flatMap(([file, text]) =>
    findCitations(text)
      .filter((c) => (c.file ? !decisions.includes(c.file) : !numbers.has(c.number)))
      .map((c) => `${file}: ${c.cited}`),
  );
}

function listTexts(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return ["node_modules", "build", "artifacts", ".baseline"].includes(entry.name) ? [] : listTexts(full);
    return TEXT.test(entry.name) ? [full] : [];
  });
}

describe("comments", () => {
  it(
    "are at most a tenth of app/'s code lines",
    () => {
      const { comment, code, share } = measure([path.join(ROOT, "app")]);
      expect(code).toBeGreaterThan(10_000);
      expect(comment).toBeGreaterThan(0);
      expect(share, `${comment} comment lines / ${code} code lines (node scripts/comment-share.mjs)`).toBeLessThanOrEqual(0.1);
    },
    PARSE_ALL_MS,
  );

  it("are counted where they are, never inside strings, regular expressions or JSX text", () => {
    const tsx = [
      "// a why",
      'const url = "https://example.org/a"; // trailing: the line is code',
      "const t = `// not a comment ${1} /* nor this */`;",
      "const r = /\\/\\/ no/;",
      "/* a block",
      "   over lines */",
      "",
      "export const A = () => (",
      "  <div><p>",
      "    {/* a JSX comment */}",
      "    see http://example.org // words",
      "  </p>",
      "  <b>// JSX text</b></div>",
      ");",
      "/** doc */ export const b = 1;",
    ].join("\n");
    expect(countLines(tsx, "x.tsx")).toEqual({ comment: 4, code: 10 });
    expect(countLines("a {\n  /* why */\n  color: red; /* x */\n}\n", "x.css")).toEqual({ comment: 1, code: 3 });
    expect(countLines("#!/usr/bin/env node\n// why\nrun();\n", "x.mjs")).toEqual({ comment: 1, code: 2 });
  });
});

describe("every cited decision", () => {
  const decisions = readdirSync(DECISIONS).filter((name) => /^\d{3}-.*\.md$/.test(name));

  it("is a file in docs/decisions/", () => {
    const files = [
      ...CITING.filter((dir) => existsSync(path.join(ROOT, dir))).flatMap((dir) => listTexts(path.join(ROOT, dir))),
      ...readdirSync(ROOT).filter((name) => CITING_ROOT_FILES.test(name) && statSync(path.join(ROOT, name)).isFile()),
    ];
    const texts = new Map(
      files.map((file) => [path.relative(ROOT, path.resolve(ROOT, file)), readFileSync(path.resolve(ROOT, file), "utf8")]),
    );
    expect(texts.size).toBeGreaterThan(500);
    expect([...texts.values()].flatMap(findCitations).length).toBeGreaterThan(300);
    expect(findMissing(texts, decisions)).toEqual([]);
  });

  it("is in the index of decisions, with its status", () => {
    const index = readFileSync(path.join(DECISIONS, "README.md"), "utf8");
    const rows = new Map([...index.matchAll(/^\| \[(\d{3})\]\(([^)]+)\) \| [^|]+ \| ([^|]+) \|/gm)].map((m) => [m[2], m[3].trim()]));
    expect(decisions.filter((name) => !name.startsWith("000-") && !rows.has(name))).toEqual([]);
    for (const [name, status] of rows) expect(status, name).toMatch(/^(Accepted|Superseded|Proposed)/);
  });

  it("is found however it is written, and a missing one is named", () => {
    const text = [
      "// the outbox (ADR 3, ADR-070; ADRs 023 and 054; ADR 090, 096)",
      "see docs/decisions/101, [ADR](docs/decisions/060-stored-state-counts-and-search-index.md), [here](decisions/050-uploads-verify-then-store.md)",
      `[the old one](005-retention-and-deletion.md), [a wrong name](docs/decisions/060-${"no-such-page"}.md)`,
      `a decision never taken: ADR ${"9".repeat(3)}`,
    ].join("\n");
    expect(findCitations(text).map((c) => c.file ?? c.number)).toEqual([
      "003",
      "070",
      "023",
      "054",
      "090",
      "096",
      "999",
      "101",
      "060-stored-state-counts-and-search-index.md",
      "050-uploads-verify-then-store.md",
      "005-retention-and-deletion.md",
      "060-no-such-page.md",
    ]);
    expect(findMissing(new Map([["x.ts", text]]), decisions)).toEqual([
      `x.ts: ADR ${"9".repeat(3)}`,
      `x.ts: decisions/060-${"no-such-page"}.md`,
    ]);
  });
});

import { readFileSync } from "node:fs";

// Reads the code blocks of a markdown file and pairs each shell example with the output the doc shows
// for it, so tests/e2e/docs.test.ts can run every example and hold the doc's answers to the app's.

export interface CodeBlock {
  lang: string;
  code: string;
  /** 1-based line of the opening fence, for failure messages. */
  line: number;
}

export interface ShellExample extends CodeBlock {
  /** What the doc says comes back: ```http / ```json blocks after it, and `# …` lines inside it. */
  outputs: CodeBlock[];
  comments: string[];
}

export function readBlocks(file: URL): CodeBlock[] {
  const lines = readFileSync(file, "utf8").split("\n");
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    blocks.push({ lang: open[1], code: body.join("\n"), line: start + 1 });
  }
  return blocks;
}

/** Each ```sh block with the ```http/```json blocks that follow it (up to the next sh/html/ts block). */
export function shellExamples(blocks: CodeBlock[]): ShellExample[] {
  const examples: ShellExample[] = [];
  for (const block of blocks) {
    if (block.lang === "sh") {
      const comments = block.code
        .split("\n")
        .filter((l) => l.startsWith("# "))
        .map((l) => l.slice(2).trim());
      examples.push({ ...block, outputs: [], comments });
    } else if ((block.lang === "http" || block.lang === "json") && examples.length > 0) {
      examples[examples.length - 1].outputs.push(block);
    } else if (examples.length > 0 && examples[examples.length - 1].outputs.length > 0) {
      // An html/ts block ends the run of outputs; later json belongs to a later shell example.
      examples.push({ lang: "", code: "", line: 0, outputs: [], comments: [] });
    }
  }
  return examples.filter((e) => e.lang === "sh");
}

export interface HttpAnswer {
  status: number | null;
  headers: Map<string, string>;
  bodies: unknown[];
}

/** Splits curl's output (with or without -i) into status, headers and the JSON bodies printed. */
export function parseCurlOutput(text: string): HttpAnswer {
  const normal = text.replace(/\r\n/g, "\n");
  const headers = new Map<string, string>();
  let status: number | null = null;
  let rest = normal;
  if (/^HTTP\/[\d.]+ \d{3}/.test(normal)) {
    const end = normal.indexOf("\n\n");
    const head = end === -1 ? normal : normal.slice(0, end);
    rest = end === -1 ? "" : normal.slice(end + 2);
    const [first, ...lines] = head.split("\n");
    status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(first)?.[1]);
    for (const line of lines) {
      const colon = line.indexOf(":");
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
  }
  return { status, headers, bodies: parseJsonRun(rest) };
}

/** One JSON value per non-empty line, or the whole text as one value when it spans lines. */
export function parseJsonRun(text: string): unknown[] {
  const trimmed = text.trim();
  if (!trimmed) return [];
  try {
    return [JSON.parse(trimmed)];
  } catch {
    // not one JSON document: read it as JSON lines below
  }
  return trimmed
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

/**
 * Whether `actual` has the documented shape: the same keys, equal values, except that a documented
 * string with "…" stands for any string and a documented ISO timestamp for any timestamp.
 */
export function matchesDoc(doc: unknown, actual: unknown): boolean {
  if (typeof doc === "string") {
    // "0b6c3f0e-…" or "/f/newsletter/thanks/5c1d…": the fixed part before the example id must match.
    if (doc.includes("…"))
      return typeof actual === "string" && actual.startsWith(doc.slice(0, doc.indexOf("…")).replace(/[0-9a-f-]+$/, ""));
    if (/^\d{4}-\d\d-\d\dT/.test(doc)) return typeof actual === "string" && !Number.isNaN(Date.parse(actual));
    return doc === actual;
  }
  if (Array.isArray(doc)) return Array.isArray(actual) && doc.length === actual.length && doc.every((d, i) => matchesDoc(d, actual[i]));
  if (doc && typeof doc === "object") {
    if (!actual || typeof actual !== "object" || Array.isArray(actual)) return false;
    const keys = Object.keys(doc);
    const actualKeys = Object.keys(actual);
    return (
      keys.length === actualKeys.length &&
      keys.every((k) => k in actual && matchesDoc((doc as Record<string, unknown>)[k], (actual as Record<string, unknown>)[k]))
    );
  }
  return doc === actual;
}

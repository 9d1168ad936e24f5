import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Small files (conventions, "Size"; issue 52): a route is its loader and action over a .server.ts and
// components, so no route passes 250 lines, and no code file in app/ passes 300. Past that, split by concern.
// The stylesheet (app/styles.css) is one file the document links once; splitting it is a separate change.

const APP = path.resolve(__dirname, "../../app");
const MAX_LINES = 300;
const MAX_ROUTE_LINES = 250;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
  );
}

/** Lines as `wc -l` counts them. */
function linesOf(text: string): number {
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** "app/x.ts: 301 lines (at most 300)" for each file over its limit; routes (app/routes/) have the lower one. */
export function oversized(files: ReadonlyMap<string, string>): string[] {
  return [...files].flatMap(([file, text]) => {
    const limit = file.startsWith("routes/") ? MAX_ROUTE_LINES : MAX_LINES;
    const lines = linesOf(text);
    return lines > limit ? [`app/${file}: ${lines} lines (at most ${limit})`] : [];
  });
}

describe("file sizes in app/", () => {
  it("has no route over 250 lines and no file over 300", () => {
    const files = new Map(
      filesUnder(APP)
        .filter((file) => /\.(tsx?|mjs|js)$/.test(file))
        .map((file) => [path.relative(APP, file).split(path.sep).join("/"), readFileSync(file, "utf8")]),
    );
    expect(oversized(files)).toEqual([]);
    // The walk read the app, so an empty list means every file is small, not that none was read.
    expect([...files.keys()].filter((file) => file.startsWith("routes/")).length).toBeGreaterThan(20);
    expect(files.size).toBeGreaterThan(150);
  });

  it("would name a route over 250 lines and any file over 300", () => {
    const lines = (n: number) => "x\n".repeat(n);
    const files = new Map([
      ["routes/admin.big.tsx", lines(251)],
      ["routes/admin.ok.tsx", lines(250)],
      ["lib/storage/big.server.ts", lines(301)],
      ["lib/storage/ok.server.ts", lines(300)],
    ]);
    expect(oversized(files)).toEqual([
      "app/routes/admin.big.tsx: 251 lines (at most 250)",
      "app/lib/storage/big.server.ts: 301 lines (at most 300)",
    ]);
  });
});

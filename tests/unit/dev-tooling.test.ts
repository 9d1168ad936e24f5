import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// What `npm start`, the bench and the tests share (the local sink, the stand-ins) lives in dev/ and in
// each destination kind's folder (ADR 114); tests/ is used by nothing but the tests.

const ROOT = path.resolve(__dirname, "../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.name === "node_modules" || entry.name.startsWith(".")
      ? []
      : entry.isDirectory()
        ? sourceFiles(path.join(dir, entry.name))
        : /\.(tsx?|mjs|js)$/.test(entry.name)
          ? [path.join(dir, entry.name)]
          : [],
  );
}

/** "file: specifier" for each import of tests/ in `files`. */
export function testImports(files: readonly { file: string; text: string }[]): string[] {
  return files.flatMap(({ file, text }) =>
    [...text.matchAll(/\b(?:from|import)\s*\(?\s*["']([^"']+)["']/g)]
      .map((m) => m[1]!)
      .filter(
        (specifier) =>
          /(^|\/)tests\//.test(specifier) ||
          (specifier.startsWith(".") && path.resolve(path.dirname(file), specifier).startsWith(path.join(ROOT, "tests") + path.sep)),
      )
      .map((specifier) => `${path.relative(ROOT, file)}: ${specifier}`),
  );
}

describe("dev tooling", () => {
  it("is imported from dev/ and the kinds' folders: nothing in app/, dev/, scripts/ or bench/ imports tests/", () => {
    const files = ["app", "dev", "scripts", "bench"].flatMap((dir) => sourceFiles(path.join(ROOT, dir)));
    expect(files.length).toBeGreaterThan(100);
    expect(testImports(files.map((file) => ({ file, text: readFileSync(file, "utf8") })))).toEqual([]);
    expect(
      testImports([
        { file: path.join(ROOT, "scripts/start.mjs"), text: 'await import("../tests/support/webhook-sink.mjs")' },
        { file: path.join(ROOT, "bench/lib/a.mjs"), text: 'import { x } from "../../dev/local-sink.mjs";' },
      ]),
    ).toEqual(["scripts/start.mjs: ../tests/support/webhook-sink.mjs"]);
  });
});

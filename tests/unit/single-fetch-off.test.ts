import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Remix 2.17.5 pins turbo-stream 2.4.1 and will not move (remix-run/remix#11604). Nothing of it runs on a
// request while single fetch is off (ADR 106), so nothing in Gatepost's own sources may turn it on or load
// it: the flag in vite.config.ts, Remix's single-fetch helpers, turbo-stream itself. The built Worker's
// side is tests/workers/single-fetch-off.test.ts.
const ADVISORIES = "turbo-stream 2.4.1: CVE-2026-34077 / GHSA-rxv8-25v2-qmq8, CVE-2026-42211 / GHSA-49rj-9fvp-4h2h (ADR 106)";
const ROOT = path.resolve(__dirname, "../..");

/** What loads turbo-stream or switches single fetch on, as it would be written in a source file. */
const SINGLE_FETCH = /\bv3_singleFetch\s*:(?!\s*false\b)|["'`]turbo-stream["'`/]|\/single-fetch["'`]|\bunstable_(?:data|singleFetch)\b/;

function sourcesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(file);
    return /\.(?:[cm]?[jt]sx?)$/.test(entry.name) ? [file] : [];
  });
}

const SOURCES = [...sourcesUnder("app"), ...sourcesUnder("functions"), "load-context.ts", "vite.config.ts"];

describe("single fetch stays off (ADR 106)", () => {
  it("reads every source the Worker is built from", () => {
    expect(SOURCES).toEqual(expect.arrayContaining(["vite.config.ts", "functions/fetch.ts", "app/root.tsx"]));
  });

  it("no source switches single fetch on or loads turbo-stream", () => {
    const found = SOURCES.filter((file) => SINGLE_FETCH.test(readFileSync(path.join(ROOT, file), "utf8")));
    expect(found, ADVISORIES).toEqual([]);
  });

  it("catches the ways it could be switched on", () => {
    const written = [
      "future: { v3_singleFetch: true }",
      "future: { v3_singleFetch : process.env.X === '1' }",
      'import { decode } from "turbo-stream";',
      'import "@remix-run/react/dist/single-fetch";',
      "return unstable_data({ ok: true });",
    ];
    expect(written.filter((text) => !SINGLE_FETCH.test(text))).toEqual([]);
    expect(SINGLE_FETCH.test("future: { v3_singleFetch: false }")).toBe(false);
  });
});

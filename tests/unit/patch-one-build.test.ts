import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolvePatchedBuild } from "../../patches/formats";

// Each patched package is loaded in one build everywhere (patches/formats.ts, ADR 116), so its patch
// writes each change once, into that build: no file of the package's other build, and few lines
// repeated within a patch. Node's own resolution must land on the table's files where `npm run dev`'s
// Node loads the package itself (Remix's request handler requires server-runtime, which requires the
// router); @remix-run/react is Vite's to load there (vite.config.ts).

const ROOT = path.resolve(__dirname, "../..");
const PATCHES = path.join(ROOT, "patches");
const require = createRequire(path.join(ROOT, "package.json"));

/** Each package patch, and the files of the one build (patches/formats.ts) it may edit. */
const ONE_BUILD: Record<string, RegExp> = {
  "@remix-run+router+1.23.4.patch": /^dist\/router\.js$|^package\.json$/,
  "@remix-run+react+2.17.5.patch": /^dist\/esm\//,
  "@remix-run+server-runtime+2.17.5.patch": /^dist\/(?!esm\/)/,
  "react-router-dom+6.30.6.patch": /^server\.js$/,
};

const patchText = (name: string) => readFileSync(path.join(PATCHES, name), "utf8");
const patchedFiles = (text: string) => [...text.matchAll(/^\+\+\+ b\/node_modules\/(?:@[^/]+\/)?[^/]+\/(.+)$/gm)].map((m) => m[1]);
const addedLines = (text: string) => [...text.matchAll(/^\+(?!\+\+ )(.*)$/gm)].map((m) => m[1].trim());

describe("patches that write each change once", () => {
  it("lists every package patch in patches/ but wrangler's (one build)", () => {
    const patches = readdirSync(PATCHES).filter((name) => name.endsWith(".patch") && !name.startsWith("wrangler+"));
    expect(patches.sort()).toEqual(Object.keys(ONE_BUILD).sort());
  });

  it.each(Object.entries(ONE_BUILD))("%s edits only the build every build loads", (patch, build) => {
    const files = patchedFiles(patchText(patch));
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((file) => !build.test(file))).toEqual([]);
  });

  it("repeats at most 10 % of its added lines within a patch (lines of punctuation only aside)", () => {
    let added = 0;
    let repeated = 0;
    for (const name of readdirSync(PATCHES).filter((file) => file.endsWith(".patch"))) {
      const lines = addedLines(patchText(name)).filter((line) => /\w/.test(line));
      const counts = new Map<string, number>();
      for (const line of lines) counts.set(line, (counts.get(line) ?? 0) + 1);
      added += lines.length;
      repeated += [...counts.values()].filter((n) => n > 1).reduce((sum, n) => sum + n, 0);
    }
    expect(added).toBeGreaterThan(100);
    expect(repeated / added).toBeLessThanOrEqual(0.1);
  });

  it.each(["@remix-run/router", "@remix-run/server-runtime", "react-router-dom/server"] as const)(
    "Node's require resolves %s to the table's build, as `npm run dev` loads it",
    (specifier) => {
      expect(require.resolve(specifier)).toBe(resolvePatchedBuild(specifier));
    },
  );
});

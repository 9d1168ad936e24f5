import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { addedLines } from "../support/router-copies";

// A package that ships an ESM and a CommonJS build gets each change twice, and only one of them may be
// the one a given command loads (the Worker bundles one, `npm run dev`'s Node loads the other). So a
// patch writes the same text into both, and the only differences allowed are the names each build's
// bundler gave the same import, listed here per patch; the tests beside it run both builds
// (router-patch, static-router-patch, remix-react-patch, server-runtime-patch, navigation-targets).

const PATCHES = path.resolve(__dirname, "../../patches");
type Halves = { esm: string; cjs: string; renames: Array<[RegExp, string]> };

const PAIRS: Record<string, Halves[]> = {
  "@remix-run+router+1.23.4.patch": [
    { esm: "node_modules/@remix-run/router/dist/router.js", cjs: "node_modules/@remix-run/router/dist/router.cjs.js", renames: [] },
  ],
  "react-router-dom+6.30.6.patch": [
    {
      esm: "node_modules/react-router-dom/server.mjs",
      cjs: "node_modules/react-router-dom/server.js",
      renames: [[/\b(?:router|reactRouter)\.(?=UNSAFE_)/g, ""]],
    },
  ],
  "@remix-run+server-runtime+2.17.5.patch": [
    {
      esm: "node_modules/@remix-run/server-runtime/dist/esm/data.js",
      cjs: "node_modules/@remix-run/server-runtime/dist/data.js",
      renames: [],
    },
  ],
  "@remix-run+react+2.17.5.patch": [
    { esm: "node_modules/@remix-run/react/dist/esm/errors.js", cjs: "node_modules/@remix-run/react/dist/errors.js", renames: [] },
    {
      esm: "node_modules/@remix-run/react/dist/esm/server.js",
      cjs: "node_modules/@remix-run/react/dist/server.js",
      renames: [
        [/\broutes\$1\b/g, "routes"],
        [/\broutes\.createServerRoutes\b/g, "createServerRoutes"],
      ],
    },
  ],
};

describe("patches with an ESM and a CommonJS half", () => {
  it("lists every patch of a package in patches/ but wrangler's (one build)", () => {
    const patches = readdirSync(PATCHES).filter((name) => !name.startsWith("wrangler+"));
    expect(patches.sort()).toEqual(Object.keys(PAIRS).sort());
  });

  it.each(Object.entries(PAIRS))("%s adds the same lines to both halves", (patch, pairs) => {
    for (const { esm, cjs, renames } of pairs) {
      const rename = (line: string) => renames.reduce((text, [from, to]) => text.replace(from, to), line);
      const [esmLines, cjsLines] = [addedLines(path.join(PATCHES, patch), esm), addedLines(path.join(PATCHES, patch), cjs)];
      expect(esmLines.flat().length).toBeGreaterThan(0);
      expect([cjs, cjsLines.map((hunk) => hunk.map(rename))]).toEqual([cjs, esmLines]);
    }
  });
});

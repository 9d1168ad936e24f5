import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error - plain ESM helper shared with npm start
import { applyLocalMigrations } from "../../scripts/worker-dev.mjs";
import { PATCHED_BUILDS, type PatchedSpecifier } from "../../patches/formats";
import { appRouteManifest, type ManifestEntry } from "../support/app-routes";

// build/server/index.js does not hold the router: it imports Remix from node_modules, and wrangler
// bundles Remix and @remix-run/router into the Worker when it deploys. So this bundles the Worker as a
// deploy does and checks that it holds one build of each patched package, the one patches/formats.ts
// names (ADR 116), that the router in it carries the patch's caches (ADR 023), and that Remix's
// RemixServer and react-router-dom's static router keep their routes (ADR 054), without which the
// router's branch cache never sees the same routes twice in a render.
// The bundle is then run, as it is, in workerd (Miniflare, with a local D1 migrated by wrangler): the
// markers say the patched code is there, the render says it works (ADR 055).
// Here because the Worker imports the build, which this layer has.

const ROOT = path.resolve(__dirname, "../..");
const WRANGLER = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");
const ROUTER_MODULE = /^\/\/ (?:\.\.\/)*node_modules\/@remix-run\/router\/dist\/([\w.]+)$/;
const REMIX_SERVER_MODULE = /^\/\/ (?:\.\.\/)*node_modules\/@remix-run\/react\/dist\/((?:esm\/)?server\.js)$/;
const STATIC_ROUTER_MODULE = /^\/\/ (?:\.\.\/)*node_modules\/react-router-dom\/(server\.m?js)$/;
// The patch's code as esbuild prints it (it may rename a local: routes -> routes3).
const CACHE_MARKS = [
  /\bcompiledPathCache\d*\.get\(/,
  /\brouteBranchesCache\d*\.get\(/,
  /\bbranches = getRouteBranches\d*\(/,
  /\brouteMatchesCache\d*\.get\(/,
];

// The other build of each patched package: the Worker must hold none of it.
const OTHER_BUILD: Record<PatchedSpecifier, RegExp> = {
  "@remix-run/router": /^@remix-run\/router\/dist\/router\.cjs\.js$/,
  "@remix-run/react": /^@remix-run\/react\/dist\/(?!esm\/)/,
  "@remix-run/server-runtime": /^@remix-run\/server-runtime\/dist\/esm\//,
  "react-router-dom/server": /^react-router-dom\/server\.mjs$/,
};
/** A file of the pinned build that the patch edits (the index itself may be left out by esbuild). */
const patchedFileOf = (pinned: string, specifier: PatchedSpecifier) =>
  specifier === "@remix-run/react"
    ? "@remix-run/react/dist/esm/server.js"
    : specifier === "@remix-run/server-runtime"
      ? "@remix-run/server-runtime/dist/data.js"
      : pinned;

let outDir: string;
let bundle: string;
let worker: Miniflare | undefined;

/** The Worker as `wrangler deploy` bundles it (its --dry-run writes the bundle and uploads nothing). */
function bundleWorker(): string {
  const args = ["deploy", "--dry-run", "--outdir", outDir];
  const result = spawnSync(process.execPath, [WRANGLER, ...args], {
    cwd: ROOT,
    env: { ...process.env, CI: "true", NO_COLOR: "1" },
    encoding: "utf8",
    timeout: 120_000,
  });
  if (result.status !== 0) throw new Error(`wrangler ${args.join(" ")} failed:\n${result.stdout}\n${result.stderr}`);
  const files = readdirSync(outDir).filter((name) => name.endsWith(".js"));
  return files.map((name) => readFileSync(path.join(outDir, name), "utf8")).join("\n");
}

/** Each copy of a package file in the bundle: the file it came from and its text (esbuild's module comments). */
function bundledModules(text: string, module: RegExp): Array<{ file: string; text: string }> {
  const found: Array<{ file: string; lines: string[] }> = [];
  let current: { file: string; lines: string[] } | undefined;
  for (const line of text.split("\n")) {
    if (/^\/\/ \S+\.(?:[cm]?js|tsx?)$/.test(line)) {
      const file = module.exec(line)?.[1];
      current = file ? { file, lines: [] } : undefined;
      if (current) found.push(current);
    } else current?.lines.push(line);
  }
  return found.map(({ file, lines }) => ({ file, text: lines.join("\n") }));
}

beforeAll(() => {
  mkdirSync(path.join(ROOT, ".wrangler"), { recursive: true });
  outDir = mkdtempSync(path.join(ROOT, ".wrangler", "server-bundle-"));
  bundle = bundleWorker();
}, 180_000);
afterAll(async () => {
  await worker?.dispose();
  rmSync(outDir, { recursive: true, force: true });
});

/** The bundled Worker, unchanged, in workerd: the bindings a page view needs, the stand-in-free test keys. */
function startBundledWorker(): Miniflare {
  const persistTo = path.join(outDir, "state");
  applyLocalMigrations({ persistTo });
  const file = readdirSync(outDir).find((name) => name.endsWith(".js"))!;
  return new Miniflare({
    modules: [{ type: "ESModule", path: path.join(outDir, file), contents: readFileSync(path.join(outDir, file), "utf8") }],
    compatibilityDate: "2025-04-01",
    compatibilityFlags: ["nodejs_compat"],
    // wrangler's local id for a D1 without database_id is its binding name, under <persist>/v3/d1.
    d1Databases: { DB: "DB" },
    d1Persist: path.join(persistTo, "v3", "d1"),
    r2Buckets: ["UPLOADS"],
    bindings: { TURNSTILE_SITE_KEY: "1x00000000000000000000AA", TURNSTILE_SECRET_KEY: "1x0000000000000000000000000000000AA" },
  });
}

describe("the Worker wrangler deploys", () => {
  it("runs the patched router: every copy of @remix-run/router in it has both caches", () => {
    const modules = bundledModules(bundle, ROUTER_MODULE);
    expect(modules.map((m) => m.file).length).toBeGreaterThanOrEqual(1);
    for (const { file, text } of modules) {
      expect([file, CACHE_MARKS.filter((mark) => !mark.test(text))]).toEqual([file, []]);
    }
  });

  it("holds the one build of each patched package that every build loads, and no other", () => {
    const files = [...bundle.matchAll(/^\/\/ (?:\.\.\/)*node_modules\/(\S+)$/gm)].map((m) => m[1]);
    const builds = (Object.keys(PATCHED_BUILDS) as PatchedSpecifier[]).map((specifier) => {
      const pinned = PATCHED_BUILDS[specifier];
      const other = OTHER_BUILD[specifier];
      return [specifier, files.includes(patchedFileOf(pinned, specifier)), files.filter((file) => other.test(file))];
    });
    expect(builds).toEqual((Object.keys(PATCHED_BUILDS) as PatchedSpecifier[]).map((specifier) => [specifier, true, []]));
  });

  it("would notice an unpatched router (the published matchRoutesImpl flattens on every call)", () => {
    const published = "// ../node_modules/@remix-run/router/dist/router.js\n  let branches = flattenRoutes(routes);\n";
    const [module] = bundledModules(published, ROUTER_MODULE);
    expect(CACHE_MARKS.filter((mark) => !mark.test(module.text))).toEqual(CACHE_MARKS);
  });

  it("names no function at run time: wrangler bundles without esbuild's __name wrapper (ADR 100)", () => {
    // keep_names = false in wrangler.toml; with it on, every closure made per request calls __name().
    expect(bundle).not.toMatch(/\b__name\(/);
    expect(bundle).toMatch(/\bfunction matchRoutesImpl\d*\(/);
  });

  it("renders with kept routes: RemixServer keeps its server routes and the static router its data routes", () => {
    const remixServer = bundledModules(bundle, REMIX_SERVER_MODULE);
    const staticRouter = bundledModules(bundle, STATIC_ROUTER_MODULE);
    expect(remixServer.length).toBeGreaterThanOrEqual(1);
    expect(staticRouter.length).toBeGreaterThanOrEqual(1);
    for (const { file, text } of remixServer) {
      expect([file, /\bserverRoutesCache\d*\.get\(/.test(text), /\broutes\d* = getServerRoutes\d*\(/.test(text)]).toEqual([
        file,
        true,
        true,
      ]);
    }
    for (const { file, text } of staticRouter) expect([file, /\bdataRoutesCache\d*\.get\(routes\d*\)/.test(text)]).toEqual([file, true]);
  });

  it("renders pages when it runs: every page twice, the second from the kept routes and matches", { timeout: 120_000 }, async () => {
    worker = startBundledWorker();
    const pages: Array<[string, string]> = [
      ["/", "Gatepost"],
      ["/f/contact", "Contact us"],
      ["/admin/login", "Operator sign-in"],
    ];
    for (let round = 0; round < 2; round++) {
      for (const [page, heading] of pages) {
        const response = await worker.dispatchFetch(`http://localhost${page}`);
        const html = await response.text();
        expect([page, round, response.status, /<h1[^>]*>([^<]*)<\/h1>/.exec(html)?.[1]]).toEqual([page, round, 200, heading]);
      }
    }
  });

  it("serves the routes the router tests build from app/routes (tests/support/app-routes.ts)", async () => {
    // @ts-expect-error - generated by `remix vite:build`; this layer runs after it
    const build = (await import("../../build/server/index.js")) as { routes: Record<string, ManifestEntry> };
    const pick = ({ id, parentId, path, index, caseSensitive }: ManifestEntry) => ({ id, parentId, path, index, caseSensitive });
    const byId = (a: ManifestEntry, b: ManifestEntry) => a.id.localeCompare(b.id);
    expect(Object.values(build.routes).map(pick).sort(byId)).toEqual(appRouteManifest().map(pick).sort(byId));
  });
});

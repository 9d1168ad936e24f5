import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

// The two builds of @remix-run/router 1.23.3 that bundles load (router.js, ESM: Vite's client build and
// the bench's esbuild; router.cjs.js: wrangler's Worker bundle), as installed (patched by
// patches/@remix-run+router+1.23.3.patch, ADR 023) and as published. The published text is the
// installed file with the patch reversed by patch-package's own code, checked against the sha256 of
// the file in the published tarball. Each text is loaded from its own temporary file, so every copy
// starts with empty caches.

export type RouterModule = typeof import("@remix-run/router");
export type RouterBuild = "router.js" | "router.cjs.js";

const ROOT = path.resolve(__dirname, "../..");
const DIST = "node_modules/@remix-run/router/dist";
export const ROUTER_PATCH = path.join(ROOT, "patches/@remix-run+router+1.23.3.patch");

/** sha256 of each file in the published tarball (`npm pack @remix-run/router@1.23.3`, 2026-11-25). */
export const PUBLISHED_SHA256: Record<RouterBuild, string> = {
  "router.js": "cca89a134076e62de5e9a14bc4bfbb43ba6ee4ecd2741ddda7d0173fa96cc49e",
  "router.cjs.js": "3bd50dfc24913e4603061b6aaec331f4d808531b729e1e8c7143206ee4229b06",
};

const require = createRequire(import.meta.url);
// Inside the project: Vitest loads modules from there, not from the system's temporary folder.
mkdirSync(path.join(ROOT, "node_modules/.cache"), { recursive: true });
const scratch = mkdtempSync(path.join(ROOT, "node_modules/.cache/gatepost-router-"));
let loaded = 0;

export const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

export function installedRouterText(build: RouterBuild): string {
  return readFileSync(path.join(ROOT, DIST, build), "utf8");
}

/** The installed builds with the patch reversed: what npm published, before patch-package ran. */
export function publishedRouterTexts(): Record<RouterBuild, string> {
  const { parsePatchFile } = require("patch-package/dist/patch/parse");
  const { reversePatch } = require("patch-package/dist/patch/reverse");
  const { executeEffects } = require("patch-package/dist/patch/apply");
  const cwd = path.join(scratch, `reversed-${++loaded}`);
  mkdirSync(path.join(cwd, DIST), { recursive: true });
  const builds: RouterBuild[] = ["router.js", "router.cjs.js"];
  for (const build of builds) writeFileSync(path.join(cwd, DIST, build), installedRouterText(build));
  const effects = reversePatch(parsePatchFile(readFileSync(ROUTER_PATCH, "utf8")));
  try {
    executeEffects(effects, { dryRun: true, cwd, bestEffort: false });
  } catch (error) {
    throw new Error(`the installed @remix-run/router is not the patched one (run npm install): ${error}`);
  }
  executeEffects(effects, { dryRun: false, cwd, bestEffort: false });
  return Object.fromEntries(builds.map((build) => [build, readFileSync(path.join(cwd, DIST, build), "utf8")])) as Record<
    RouterBuild,
    string
  >;
}

/** Loads a router build's text as a module of its own (fresh module state). */
export async function loadRouter(text: string, build: RouterBuild): Promise<RouterModule> {
  const file = path.join(scratch, `router-${++loaded}.${build === "router.js" ? "mjs" : "cjs"}`);
  writeFileSync(file, text);
  return build === "router.js" ? await import(/* @vite-ignore */ pathToFileURL(file).href) : require(file);
}

export function removeRouterCopies() {
  rmSync(scratch, { recursive: true, force: true });
}

import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { PATCHED_BUILDS } from "../../patches/formats";

// The files a patch in patches/ touches, as installed (patched) and as published: the published text is
// the installed file with the patch reversed by patch-package's own code. For @remix-run/router its one
// build every build loads, router.js (ESM, patches/formats.ts), checked against the sha256 of the file
// in the published tarball. Each text is loaded from its own temporary file inside node_modules (so its
// bare imports resolve there), so every copy starts with empty caches.

export type RouterModule = typeof import("@remix-run/router");
export type RouterBuild = "router.js";

const ROOT = path.resolve(__dirname, "../..");
const DIST = "node_modules/@remix-run/router/dist";
export const ROUTER_PATCH = path.join(ROOT, "patches/@remix-run+router+1.23.4.patch");
export const ROUTER_BUILDS: RouterBuild[] = [path.basename(PATCHED_BUILDS["@remix-run/router"]) as RouterBuild];

/** sha256 of the file in the published tarball (`npm pack @remix-run/router@1.23.4`, 2026-11-26). */
export const PUBLISHED_SHA256: Record<RouterBuild, string> = {
  "router.js": "b99ec1f525cbbdc424746b09746a1030e3810e00011d1997f8376fddf31ced14",
};

const require = createRequire(import.meta.url);
// Inside the project: Vitest loads modules from there, not from the system's temporary folder.
mkdirSync(path.join(ROOT, "node_modules/.cache"), { recursive: true });
const scratch = mkdtempSync(path.join(ROOT, "node_modules/.cache/gatepost-patched-"));
let loaded = 0;

export const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** An installed file's text, by its path in the project (node_modules/…). */
export function installedText(file: string): string {
  return readFileSync(path.join(ROOT, file), "utf8");
}

export function installedRouterText(build: RouterBuild): string {
  return installedText(`${DIST}/${build}`);
}

/** The installed `files` (paths in the project) with `patch` reversed: what npm published, before patch-package ran. */
export function publishedTexts(patch: string, files: string[]): Record<string, string> {
  const { parsePatchFile } = require("patch-package/dist/patch/parse");
  const { reversePatch } = require("patch-package/dist/patch/reverse");
  const { executeEffects } = require("patch-package/dist/patch/apply");
  const cwd = path.join(scratch, `reversed-${++loaded}`);
  for (const file of files) {
    mkdirSync(path.dirname(path.join(cwd, file)), { recursive: true });
    writeFileSync(path.join(cwd, file), installedText(file));
  }
  const effects = reversePatch(parsePatchFile(readFileSync(patch, "utf8"))).filter((effect: { path: string }) =>
    files.includes(effect.path),
  );
  try {
    executeEffects(effects, { dryRun: true, cwd, bestEffort: false });
  } catch (error) {
    throw new Error(`the installed files are not the patched ones (run npm install): ${error}`);
  }
  executeEffects(effects, { dryRun: false, cwd, bestEffort: false });
  return Object.fromEntries(files.map((file) => [file, readFileSync(path.join(cwd, file), "utf8")]));
}

export function publishedRouterTexts(): Record<RouterBuild, string> {
  const texts = publishedTexts(
    ROUTER_PATCH,
    ROUTER_BUILDS.map((build) => `${DIST}/${build}`),
  );
  return Object.fromEntries(ROUTER_BUILDS.map((build) => [build, texts[`${DIST}/${build}`]])) as Record<RouterBuild, string>;
}

/** Loads a text as a module of its own (fresh module state): ESM from a .mjs file, CommonJS with Node's require. */
export async function loadText<T>(text: string, format: "esm" | "cjs"): Promise<T> {
  const file = path.join(scratch, `copy-${++loaded}.${format === "esm" ? "mjs" : "cjs"}`);
  writeFileSync(file, text);
  return format === "esm" ? await import(/* @vite-ignore */ pathToFileURL(file).href) : require(file);
}

export function loadRouter(text: string, _build: RouterBuild): Promise<RouterModule> {
  return loadText<RouterModule>(text, "esm");
}

/** The lines a patch adds to `file`, hunk by hunk. */
export function addedLines(patch: string, file: string): string[][] {
  const { parsePatchFile } = require("patch-package/dist/patch/parse");
  const effects: Array<{ path: string; hunks?: Array<{ parts: Array<{ type: string; lines: string[] }> }> }> = parsePatchFile(
    readFileSync(patch, "utf8"),
  );
  const effect = effects.find((e) => e.path === file);
  if (!effect?.hunks) throw new Error(`${path.basename(patch)} does not patch ${file}`);
  return effect.hunks.map((hunk) => hunk.parts.filter((part) => part.type === "insertion").flatMap((part) => part.lines));
}

export function removeRouterCopies() {
  rmSync(scratch, { recursive: true, force: true });
}

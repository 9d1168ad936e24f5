// @remix-run/router 1.23 (under Remix 2.17) matches a URL by flattening and ranking the whole route
// tree, and compiling a RegExp for every route path it tries, on every call of matchRoutes. Remix's
// server calls it several times per request (the handler, the static handler, the render), so with
// Gatepost's 16 routes route matching was the biggest single cost of an SSR request in workerd and a
// fifth of a form post (docs/performance.md). React Router 7 caches the same work upstream
// (remix-run/react-router#14967, #14866), but there is no 1.x release with it.
//
// The patch below, applied in place and idempotent (ADR 009):
// - the flattened, ranked branches are kept per routes array, on the server only: there the route
//   tree is built once per handler and never changed, while in the browser lazy route discovery adds
//   routes to it in place, so there it keeps recomputing;
// - on the server, each kept tree also remembers which branch first matched a pathname (bounded):
//   matching is pure, so the branches before it would fail again; match objects are still built
//   fresh on every call;
// - a compiled path is kept per (path, caseSensitive, end), everywhere: it is a pure function of
//   those, and the map is bounded as upstream's is.
// router.umd.js is left as published, and the test compares the two on Gatepost's routes.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { applyEdits } from "./patch-file.mjs";

const DIST = new URL("../node_modules/@remix-run/router/dist/", import.meta.url);
/** The builds bundlers pick: ESM (wrangler, Vite) and CommonJS (Node's require). */
export const ROUTER_FILES = ["router.js", "router.cjs.js"].map((name) => fileURLToPath(new URL(name, DIST)));
export const MARKER = "/* gatepost: cached route matching v2 (scripts/patch-remix-router.mjs) */";

export const EDITS = [
  [
    `  let branches = flattenRoutes(routes);\n  rankRouteBranches(branches);\n  let matches = null;\n  let decoded = decodePath(pathname);\n  for (let i = 0; matches == null && i < branches.length; ++i) {\n`,
    `  let branches = gatepostRankedBranches(routes);\n  let matches = null;\n  let decoded = decodePath(pathname);\n  for (let i = gatepostFirstBranch(branches, decoded, allowPartial); matches == null && i < branches.length; ++i) {\n`,
  ],
  [
    `    matches = matchRouteBranch(branches[i], decoded, allowPartial);\n  }\n  return matches;\n`,
    `    matches = matchRouteBranch(branches[i], decoded, allowPartial);\n    if (matches != null) gatepostRememberBranch(branches, decoded, allowPartial, i);\n  }\n  if (matches == null) gatepostRememberBranch(branches, decoded, allowPartial, branches.length);\n  return matches;\n`,
  ],
  [
    `function compilePath(path, caseSensitive, end) {\n`,
    `${MARKER}
const gatepostBranchCache = new WeakMap();
function gatepostRankedBranches(routes) {
  let branches = typeof document === "undefined" ? gatepostBranchCache.get(routes) : undefined;
  if (branches === undefined) {
    branches = flattenRoutes(routes);
    rankRouteBranches(branches);
    if (typeof document === "undefined") gatepostBranchCache.set(routes, branches);
  }
  return branches;
}
// Per kept tree: the index of the first branch that matched a pathname (or branches.length for none).
// Matching is a pure function of the branches and the pathname, so the branches before it would fail
// again; fresh match objects are still built from that branch on every call.
const gatepostFirstBranches = new WeakMap();
function gatepostFirstBranch(branches, decoded, allowPartial) {
  return gatepostFirstBranches.get(branches)?.get(allowPartial ? "p" + decoded : "f" + decoded) ?? 0;
}
function gatepostRememberBranch(branches, decoded, allowPartial, index) {
  if (typeof document !== "undefined" || decoded.length > 512) return;
  let first = gatepostFirstBranches.get(branches);
  if (first === undefined) gatepostFirstBranches.set(branches, (first = new Map()));
  if (first.size >= 1000) first.clear();
  first.set(allowPartial ? "p" + decoded : "f" + decoded, index);
}
const gatepostCompiledPaths = new Map();
function compilePath(path, caseSensitive, end) {
  let byFlags = gatepostCompiledPaths.get(path);
  if (byFlags === undefined) {
    if (gatepostCompiledPaths.size >= 1000) gatepostCompiledPaths.clear();
    gatepostCompiledPaths.set(path, (byFlags = []));
  }
  const flags = (caseSensitive ? 1 : 0) + (end === false ? 0 : 2);
  return (byFlags[flags] ??= gatepostCompilePathUncached(path, caseSensitive, end));
}
function gatepostCompilePathUncached(path, caseSensitive, end) {\n`,
  ],
];

/**
 * Applies the patch to each installed router build once. Returns one result per file: "patched",
 * "already" or "not-applicable" (the file no longer holds the code it changes, e.g. after an upgrade).
 */
export function patchRemixRouter(files = ROUTER_FILES) {
  return files.map((file) => (existsSync(file) ? applyEdits(file, MARKER, EDITS) : "not-applicable"));
}

// `npm install` runs this (package.json postinstall), so the server build that wrangler bundles for
// Pages, the tests and the bench all get the cached matching.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const results = patchRemixRouter();
  if (results.includes("not-applicable")) {
    console.warn("patch-remix-router: @remix-run/router no longer holds the code this changes; left as is (slower, still correct).");
  } else {
    console.log(`patch-remix-router: ${results.every((r) => r === "already") ? "already applied" : "applied"}`);
  }
}

// @remix-run/router 1.23 (under Remix 2.17) matches a URL by flattening and ranking the whole route
// tree, and compiling a RegExp for every route path it tries, on every call of matchRoutes. Remix's
// server calls it several times per request (the handler, the static handler, the render), and the
// work grows with the route count: Gatepost has 16, the template 2 (docs/performance.md). React Router 7 caches the same work upstream
// (remix-run/react-router#14967, #14866), but there is no 1.x release with it.
//
// The patch below, applied in place and idempotent (ADR 009):
// - on the server only, the flattened, ranked branches are kept per tree shape (the paths, flags and
//   nesting they are computed from; Remix builds a new tree of the same shape for every render) and
//   rebuilt over each tree's own route objects. In the browser lazy route discovery adds routes to a
//   tree in place, so there it keeps recomputing, as published;
// - per shape, the index of the branch that first matched a pathname is remembered (bounded):
//   matching is pure, so the branches before it would fail again. Match objects are still built
//   fresh on every call, so no request sees another's params;
// - a compiled path is kept per (path, caseSensitive, end), everywhere: it is a pure function of
//   those, and the map is bounded as upstream's is.
// router.umd.js is left as published, and the test compares the two on Gatepost's routes.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { applyEdits } from "./patch-file.mjs";

const DIST = new URL("../node_modules/@remix-run/router/dist/", import.meta.url);
/** The builds bundlers pick: ESM (wrangler, Vite) and CommonJS (Node's require). */
export const ROUTER_FILES = ["router.js", "router.cjs.js"].map((name) => fileURLToPath(new URL(name, DIST)));
export const MARKER = "/* gatepost: cached route matching v4 (scripts/patch-remix-router.mjs) */";

// matchRoutesImpl's loop over freshly flattened, ranked branches, as published in 1.23.3.
const MATCH_LOOP = `  let branches = flattenRoutes(routes);
  rankRouteBranches(branches);
  let matches = null;
  let decoded = decodePath(pathname);
  for (let i = 0; matches == null && i < branches.length; ++i) {
    // Incoming pathnames are generally encoded from either window.location
    // or from router.navigate, but we want to match against the unencoded
    // paths in the route definitions.  Memory router locations won't be
    // encoded here but there also shouldn't be anything to decode so this
    // should be a safe operation.  This avoids needing matchRoutes to be
    // history-aware.
    matches = matchRouteBranch(branches[i], decoded, allowPartial);
  }
  return matches;
}
`;

export const EDITS = [
  [MATCH_LOOP, `  return gatepostMatchRoutes(routes, decodePath(pathname), allowPartial);\n}\n`],
  [
    `function compilePath(path, caseSensitive, end) {\n`,
    `${MARKER}
// A route tree's shape: everything flattenRoutes and rankRouteBranches read (paths, index and
// caseSensitive flags, nesting). Remix builds a new tree object with the same shape for every render,
// so trees are recognised by shape, not only by identity.
function gatepostShapeKey(routes) {
  let key = "";
  for (const route of routes) {
    key += (route.index === true ? "i" : route.index ? "j" : "-") + (route.caseSensitive === true ? "c" : "-") + JSON.stringify(route.path ?? null);
    if (route.children && route.children.length > 0) key += "[" + gatepostShapeKey(route.children) + "]";
    key += ",";
  }
  return key;
}
const gatepostShapesByTree = new WeakMap();
const gatepostShapes = new Map();
// Per shape: the ranked branches of the first tree seen with it, and for each pathname the index of
// the first branch that matched (or the branch count for none). Server only: in the browser, lazy
// route discovery adds routes to a tree in place.
function gatepostShapeOf(routes) {
  if (typeof document !== "undefined") return null;
  let shape = gatepostShapesByTree.get(routes);
  if (shape === undefined) {
    const key = gatepostShapeKey(routes);
    shape = gatepostShapes.get(key);
    if (shape === undefined) {
      const branches = flattenRoutes(routes);
      rankRouteBranches(branches);
      if (gatepostShapes.size >= 100) gatepostShapes.clear();
      shape = { routes, branches, first: new Map() };
      gatepostShapes.set(key, shape);
    }
    gatepostShapesByTree.set(routes, shape);
  }
  return shape;
}
// Branch i of a shape, over the route objects of the given tree (found by the same child indexes).
function gatepostBranchOf(shape, i, routes) {
  const branch = shape.branches[i];
  if (routes === shape.routes) return branch;
  let siblings = routes;
  const routesMeta = branch.routesMeta.map((meta) => {
    const route = siblings[meta.childrenIndex];
    siblings = route.children;
    return { ...meta, route };
  });
  return { path: branch.path, score: branch.score, routesMeta };
}
function gatepostMatchRoutes(routes, decoded, allowPartial) {
  const shape = gatepostShapeOf(routes);
  let matches = null;
  if (shape === null) {
    const branches = flattenRoutes(routes);
    rankRouteBranches(branches);
    for (let i = 0; matches == null && i < branches.length; ++i) matches = matchRouteBranch(branches[i], decoded, allowPartial);
    return matches;
  }
  // Matching is a pure function of the branches and the pathname: the branches before the one that
  // matched last time would fail again. Match objects are still built fresh on every call.
  const key = (allowPartial ? "p" : "f") + decoded;
  const known = shape.first.get(key);
  if (known !== undefined) {
    return known < shape.branches.length ? matchRouteBranch(gatepostBranchOf(shape, known, routes), decoded, allowPartial) : null;
  }
  let i = 0;
  for (; matches == null && i < shape.branches.length; ++i) matches = matchRouteBranch(gatepostBranchOf(shape, i, routes), decoded, allowPartial);
  if (decoded.length <= 512) {
    if (shape.first.size >= 1000) shape.first.clear();
    shape.first.set(key, matches == null ? shape.branches.length : i - 1);
  }
  return matches;
}
const gatepostCompiledPaths = new Map();
function compilePath(path, caseSensitive, end) {
  let byFlags = gatepostCompiledPaths.get(path);
  if (byFlags === undefined) {
    if (gatepostCompiledPaths.size >= 1000) gatepostCompiledPaths.clear();
    gatepostCompiledPaths.set(path, (byFlags = []));
  }
  const flags = (caseSensitive ? 1 : 0) + (end === undefined || end ? 2 : 0);
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

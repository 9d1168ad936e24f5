// JS bytes per page, read from a Remix client build: the manifest's entry and route modules with
// their static imports, plus every chunk those load with a dynamic import() (e.g. the Turnstile
// widget), plus the route manifest as the page gets it. Sizes are raw and gzip (zlib level 9), file by
// file, as a browser would fetch them. Used by the JS budget test and by `npm run bench`.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { matchRoutes } from "@remix-run/router";

const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.\/[^"']+\.js)["']/g;

/** Reads window.__remixManifest from build/client/assets/manifest-*.js. Throws when it is missing. */
export function readRemixManifest(clientDir) {
  const assets = path.join(clientDir, "assets");
  const file = readdirSync(assets).find((name) => /^manifest-[0-9a-f]+\.js$/.test(name));
  if (!file) throw new Error(`no Remix manifest in ${assets}: build the app first`);
  const text = readFileSync(path.join(assets, file), "utf8");
  const json = text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1);
  return { manifest: JSON.parse(json), url: `/assets/${file}` };
}

function fileSizes(clientDir, url) {
  const bytes = readFileSync(path.join(clientDir, url));
  return { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length, text: bytes.toString("utf8") };
}

/** The route tree as Remix's router matches it, built from the manifest's flat list. */
function routeTree(routes, parentId) {
  return Object.values(routes)
    .filter((route) => route.parentId === parentId)
    .map(({ id, path, index, caseSensitive }) => ({ id, path, index, caseSensitive, children: routeTree(routes, id) }));
}

/** An address the route answers: each segment's own path with its params filled in. */
function addressOf(routes, routeId) {
  const segments = [];
  for (let id = routeId; id; id = routes[id].parentId) if (routes[id].path) segments.unshift(routes[id].path);
  return `/${segments.join("/")}`.replace(/\/:[^/]+\?/g, "").replace(/:[^/]+|\*/g, "x");
}

/**
 * With lazy route discovery (ADR 117) the page never fetches the manifest file: the server inlines the
 * routes matched for this address and its parents (fog-of-war's getPartialManifest), the rest comes
 * later as JSON. So that script is what counts, the same way for Gatepost and the bare app.
 */
function inlineManifest(manifest, routeId) {
  const tree = routeTree(manifest.routes, undefined);
  const address = addressOf(manifest.routes, routeId);
  const ids = new Set([routeId, ...(matchRoutes(tree, address) ?? []).map((m) => m.route.id)]);
  for (let id = routeId; id; id = manifest.routes[id].parentId) ids.add(id);
  const parents = address.split("/").filter(Boolean).slice(0, -1);
  for (let n = 0; n <= parents.length; n++)
    for (const match of matchRoutes(tree, `/${parents.slice(0, n).join("/")}`) ?? []) ids.add(match.route.id);
  const partial = { ...manifest, routes: Object.fromEntries([...ids].map((id) => [id, manifest.routes[id]])) };
  const text = `window.__remixManifest = ${JSON.stringify(partial, null, 2)};`;
  return { raw: Buffer.byteLength(text), gzip: gzipSync(text, { level: 9 }).length };
}

/** The set of JS URLs a page whose deepest route is `routeId` loads, with their sizes. */
export function measureRouteJs(clientDir, routeId, { manifest } = readRemixManifest(clientDir)) {
  const routes = manifest.routes;
  if (!routes[routeId]) throw new Error(`route ${routeId} is not in the manifest`);
  const queue = [manifest.entry.module, ...manifest.entry.imports];
  for (let id = routeId; id; id = routes[id].parentId) queue.push(routes[id].module, ...(routes[id].imports ?? []));
  const files = new Map();
  while (queue.length > 0) {
    const url = queue.shift();
    if (files.has(url)) continue;
    const sizes = fileSizes(clientDir, url);
    files.set(url, { raw: sizes.raw, gzip: sizes.gzip });
    for (const match of sizes.text.matchAll(RELATIVE_IMPORT)) {
      queue.push(path.posix.join(path.posix.dirname(url), match[1]));
    }
  }
  const inline = inlineManifest(manifest, routeId);
  let { raw, gzip } = inline;
  for (const size of files.values()) {
    raw += size.raw;
    gzip += size.gzip;
  }
  return { routeId, files: [...files.keys()].sort(), raw, gzip, manifest: inline };
}

/** JS per page for every route that renders a page (has a module with a default export in the build). */
export function measureAllPages(clientDir) {
  const read = readRemixManifest(clientDir);
  return Object.keys(read.manifest.routes)
    .filter((id) => id !== "root")
    .map((id) => measureRouteJs(clientDir, id, read));
}

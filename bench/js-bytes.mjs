// JS bytes per page, read from a Remix client build: the manifest's entry and route modules with
// their static imports, plus every chunk those load with a dynamic import() (e.g. the Turnstile
// widget), plus the manifest script itself. Sizes are raw and gzip (zlib level 9), file by file, as
// a browser would fetch them. Used by the JS budget test and by `npm run bench`.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";

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

/** The set of JS URLs a page whose deepest route is `routeId` loads, with their sizes. */
export function measureRouteJs(clientDir, routeId, { manifest, url: manifestUrl } = readRemixManifest(clientDir)) {
  const routes = manifest.routes;
  if (!routes[routeId]) throw new Error(`route ${routeId} is not in the manifest`);
  const queue = [manifestUrl, manifest.entry.module, ...manifest.entry.imports];
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
  let raw = 0;
  let gzip = 0;
  for (const size of files.values()) {
    raw += size.raw;
    gzip += size.gzip;
  }
  return { routeId, files: [...files.keys()].sort(), raw, gzip };
}

/** JS per page for every route that renders a page (has a module with a default export in the build). */
export function measureAllPages(clientDir) {
  const read = readRemixManifest(clientDir);
  return Object.keys(read.manifest.routes)
    .filter((id) => id !== "root")
    .map((id) => measureRouteJs(clientDir, id, read));
}

import path from "node:path";
import { flatRoutes } from "@remix-run/dev/dist/config/flat-routes.js";
import { createRoutes, createStaticHandlerDataRoutes, type ServerRouteManifest } from "@remix-run/server-runtime/dist/routes.js";

// Gatepost's route tree without a build: app/routes through the function Remix's Vite plugin builds
// the route manifest with (tests/e2e/server-bundle.test.ts checks it lists what the build lists),
// then the two trees Remix's server matches against, built by Remix's own code.

export interface ManifestEntry {
  id: string;
  parentId?: string;
  path?: string;
  index?: boolean;
  caseSensitive?: boolean;
}

let manifest: ManifestEntry[] | undefined;

/** The app's route manifest: the root route and every file in app/routes (read once). */
export function appRouteManifest(): ManifestEntry[] {
  manifest ??= readManifest();
  return manifest.map((route) => ({ ...route }));
}

function readManifest(): ManifestEntry[] {
  const routes = flatRoutes(path.resolve(__dirname, "../../app"));
  const root: ManifestEntry = { id: "root", path: "" };
  return [root, ...Object.values(routes)].map(({ id, parentId, path, index, caseSensitive }) => ({
    id,
    ...(parentId ? { parentId } : {}),
    ...(path !== undefined ? { path } : {}),
    ...(index ? { index } : {}),
    ...(caseSensitive ? { caseSensitive } : {}),
  }));
}

function serverManifest(): ServerRouteManifest {
  return Object.fromEntries(appRouteManifest().map((route) => [route.id, { ...route, module: {} as never }]));
}

/** The tree Remix's request handler matches (server-runtime createRoutes), new on every call. */
export function serverRouteTree() {
  return createRoutes(serverManifest());
}

/** The tree Remix's static handler matches (createStaticHandlerDataRoutes), new on every call. */
export function dataRouteTree() {
  return createStaticHandlerDataRoutes(serverManifest(), {} as never);
}

/** A route's full URL pattern, its parents' paths included ("/admin/submissions/:id"). */
export function fullPattern(route: ManifestEntry, all: ManifestEntry[]): string {
  const parts: string[] = [];
  for (let r: ManifestEntry | undefined = route; r; r = all.find((p) => p.id === r!.parentId)) if (r.path) parts.unshift(r.path);
  return `/${parts.join("/")}`;
}

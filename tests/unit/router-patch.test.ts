import { isDeepStrictEqual } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { appRouteManifest, dataRouteTree, fullPattern, serverRouteTree } from "../support/app-routes";
import {
  PUBLISHED_SHA256,
  ROUTER_BUILDS as BUILDS,
  installedRouterText,
  loadRouter,
  publishedRouterTexts,
  removeRouterCopies,
  sha256,
  type RouterBuild,
  type RouterModule,
} from "../support/router-copies";

// Route matching with the backported caches (patches/@remix-run+router+1.23.4.patch, ADR 023) answers
// exactly as the published router does, in router.js (ESM), the one build every build loads
// (patches/formats.ts, ADR 116): every route of the app and edge paths, repeated so the caches
// answer, over several route arrays and a new tree per call (as a render builds one), under basenames.
// The last block loads deliberately broken caches and sees these comparisons catch each one.
// The patch's backslash normalisation (ADR 055) is attacked in tests/unit/navigation-targets.test.ts.

type Route = { id?: string; path?: string; index?: boolean; caseSensitive?: boolean; children?: Route[] };
type Observations = Record<string, unknown>;

// Shapes Gatepost does not use (yet), added under the root of one tree.
const edgeRoutes = (): Route[] => [
  { id: "edge/optional", path: "docs/:lang?/guide" },
  { id: "edge/optional-static", path: "blog/archive?/:year?" },
  { id: "edge/exact-case", path: "Exact", caseSensitive: true },
  { id: "edge/exact", path: "Exact" },
  { id: "edge/files", path: "files/*" },
  { id: "edge/dashed", path: "user-preferences/:form-id" },
  { id: "edge/user", path: "user" },
  { id: "edge/legacy", path: "legacy*" }, // the router warns about this one on every compile
  { id: "edge/absolute", path: "/abs/:x" },
  {
    id: "edge/layout",
    children: [
      { id: "edge/layout/index", index: true },
      { id: "edge/layout/inside", path: "inside/:id" },
    ],
  },
];

const EDGE_PATHS = [
  "/", "", "/f/contact", "/f/contact/", "/f/contact//", "//f//contact", "/F/CONTACT", "/f/con%20tact", "/f/con tact",
  "/f/a%2Fb", "/f/a%2fb", "/f/%E2%9C%93", "/f/✓", "/f/%C3%A9t%C3%A9", "/f/%ZZ", "/f/contact/thanks", "/f/contact/thanks/",
  "/api/forms//submissions", "/admin", "/admin/", "/ADMIN", "/admin/submissions/", "/admin/submissions/a/b", "/admin/audit?x=1",
  "/admin#top", "/nowhere", "/a/b/c", "/docs/guide", "/docs/en/guide", "/docs/en", "/blog", "/blog/archive", "/blog/2024",
  "/blog/archive/2024", "/Exact", "/exact", "/EXACT/", "/files", "/files/", "/files/a/b%20c", "/legacy", "/legacyx",
  "/legacy/x", "/user", "/user-preferences/x", "/abs/1", "/inside/2", "/healthz.json",
]; // prettier-ignore
const BASENAMES = ["/", "/base", "/base/", "/BASE"];

/** For every route of the app: its full pattern filled in, with a trailing slash, upper-cased, encoded. */
function appPaths(): string[] {
  const manifest = appRouteManifest();
  return manifest.flatMap((route) => {
    const filled = fullPattern(route, manifest)
      .replace(/:[\w-]+/g, "x1")
      .replace(/\*$/, "a/b");
    return [filled, `${filled}/`, filled.toUpperCase(), filled.replace(/x1/g, "%E2%9C%93%20x")];
  });
}
const PATHS = [...EDGE_PATHS, ...appPaths()];

function withEdgeRoutes(tree: Route[]): Route[] {
  tree[0].children!.push(...edgeRoutes());
  return tree;
}

function objectsOf(tree: Route[], into = new Set<Route>()): Set<Route> {
  for (const route of tree) objectsOf(route.children ?? [], into.add(route));
  return into;
}

/** What a caller can see of a match: ids, params (undefined ones too), pathnames, and whose route objects. */
function observe(router: RouterModule, tree: Route[], location: string | { pathname: string }, basename?: string): unknown {
  try {
    const matches = router.matchRoutes(tree as never, location, basename);
    const own = objectsOf(tree);
    return matches?.map((m) => [m.route.id, Object.entries(m.params), m.pathname, m.pathnameBase, own.has(m.route as Route)]) ?? null;
  } catch (error) {
    return { threw: String(error) };
  }
}

/** Every path under every basename, three passes, the route arrays interleaved; warnings included. */
function observeMatching(router: RouterModule): Observations {
  const trees: Record<string, () => Route[]> = {};
  const [server, data, edge] = [serverRouteTree(), dataRouteTree(), withEdgeRoutes(serverRouteTree())];
  const noSplat = serverRouteTree();
  noSplat[0].children = noSplat[0].children.filter((route) => route.path !== "*");
  Object.assign(trees, { server: () => server, data: () => data, edge: () => edge, noSplat: () => noSplat, perCall: serverRouteTree });
  const warnings: string[] = [];
  const warn = vi.spyOn(console, "warn").mockImplementation((message: string) => void warnings.push(message));
  const seen: Observations = {};
  try {
    for (let pass = 0; pass < 3; pass++) {
      for (const path of PATHS) {
        for (const basename of BASENAMES) {
          const location = basename === "/" ? path : `${basename.replace(/\/$/, "")}${path}`;
          for (const [name, tree] of Object.entries(trees)) {
            seen[`${name} ${basename} ${location} #${pass}`] = observe(router, tree(), location, basename);
          }
        }
        seen[`server /base ${path} (outside the basename) #${pass}`] = observe(router, server, path, "/base");
        seen[`server {pathname} ${path} #${pass}`] = observe(router, server, { pathname: path });
      }
    }
  } finally {
    warn.mockRestore();
  }
  return { ...seen, warnings };
}

const ids = (matches: Array<{ route: { id?: string } }> | null) => matches?.map((m) => m.route.id) ?? null;

/** A route added in place to a tree that was matched before, outside a browser or in one. */
function observeInPlaceAdd(router: RouterModule, inBrowser: boolean): Observations {
  if (inBrowser) Object.assign(globalThis, { window: { document: { createElement: () => ({}) } } });
  try {
    const tree = serverRouteTree();
    const before = ids(router.matchRoutes(tree as never, "/late"));
    tree[0].children.push({ id: "late", path: "late", children: [] } as never);
    return { before, after: ids(router.matchRoutes(tree as never, "/late")) };
  } finally {
    delete (globalThis as { window?: unknown }).window;
  }
}

/** Routes patched in (lazy route discovery's path), then the same top-level array matched again. */
function observePatchRoutes(router: RouterModule): Observations {
  const dataRouter = router.createRouter({ routes: dataRouteTree() as never, history: router.createMemoryHistory() });
  try {
    const routes = dataRouter.routes;
    const before = ids(router.matchRoutes(routes, "/late"));
    dataRouter.patchRoutes("root", [{ id: "late", path: "late" }]);
    return { before, after: ids(router.matchRoutes(routes, "/late")) };
  } finally {
    dataRouter.dispose();
  }
}

/** More patterns than the compiled-path cache holds, twice, so it is cleared and refilled. */
function observeManyPatterns(router: RouterModule): Observations {
  const seen: Observations = {};
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < 2500; i++) {
      const pattern = { path: `/p${i}/:id`, caseSensitive: i % 2 === 0, end: i % 3 !== 0 };
      seen[`${i} #${round}`] = router.matchPath(pattern, `/P${i}/v/w`)?.pathnameBase ?? null;
    }
  }
  return seen;
}

/** A caller that changes the matches it was given, then asks again: it must get what it got the first time. */
function observeCallerChanges(router: RouterModule): Observations {
  const tree = serverRouteTree();
  const seen: Observations = {};
  for (const path of ["/f/contact", "/admin/submissions/abc", "/"]) {
    router.matchRoutes(tree as never, path); // the first answer, which a cache keeps
    const first = router.matchRoutes(tree as never, path)!;
    seen[`${path} shared params`] = first.every((m) => m.params === first[0].params);
    Object.assign(first[0].params, { formId: "changed", extra: "x" });
    first[0].pathname = "/changed";
    first.push(first[0]);
    seen[path] = observe(router, tree, path);
  }
  return seen;
}

const SCENARIOS = {
  matching: observeMatching,
  callerChanges: observeCallerChanges,
  inPlaceInBrowser: (router: RouterModule) => observeInPlaceAdd(router, true),
  patchRoutes: observePatchRoutes,
  manyPatterns: observeManyPatterns,
};

function differences(a: Observations, b: Observations): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((key) => !isDeepStrictEqual(a[key], b[key]));
}

async function differencesFromPublished(text: string, build: RouterBuild): Promise<Record<string, string[]>> {
  const [candidate, reference] = [await loadRouter(text, build), await loadRouter(published[build], build)];
  return Object.fromEntries(
    Object.entries(SCENARIOS).map(([name, scenario]) => [name, differences(scenario(candidate), scenario(reference)).slice(0, 5)]),
  );
}

let published: Record<RouterBuild, string>;
beforeAll(() => {
  published = publishedRouterTexts();
});
afterAll(() => removeRouterCopies());

describe("the @remix-run/router patch", () => {
  it("is installed, and reversing it gives back the published files byte for byte", () => {
    for (const build of BUILDS) {
      const installed = installedRouterText(build);
      expect(installed, `${build}: run npm install`).toMatch(/compiledPathCache[\s\S]*routeBranchesCache[\s\S]*routeMatchesCache/);
      expect(sha256(published[build]), build).toBe(PUBLISHED_SHA256[build]);
      expect(sha256(installed)).not.toBe(PUBLISHED_SHA256[build]);
    }
  });

  it("reaches every route of the app with the paths compared here", async () => {
    const reference = await loadRouter(published["router.js"], "router.js");
    const matched = new Set(appPaths().flatMap((path) => ids(reference.matchRoutes(serverRouteTree() as never, path)) ?? []));
    const manifest = appRouteManifest().map((route) => route.id);
    expect(manifest.length).toBeGreaterThanOrEqual(17);
    expect(manifest.filter((id) => !matched.has(id))).toEqual([]);
  });

  it.each(BUILDS)(
    "%s matches as published: every path, repeated, over several route arrays, in a browser too",
    { timeout: 60_000 },
    async (build) => {
      expect(await differencesFromPublished(installedRouterText(build), build)).toEqual({
        matching: [],
        callerChanges: [],
        inPlaceInBrowser: [],
        patchRoutes: [],
        manyPatterns: [],
      });
    },
  );

  it("keeps the branches of a routes array changed in place outside a browser (the one case it scopes out)", async () => {
    const [patched, reference] = [
      await loadRouter(installedRouterText("router.js"), "router.js"),
      await loadRouter(published["router.js"], "router.js"),
    ];
    expect(observeInPlaceAdd(reference, false)).toEqual({ before: ["root", "routes/$"], after: ["root", "late"] });
    expect(observeInPlaceAdd(patched, false)).toEqual({ before: ["root", "routes/$"], after: ["root", "routes/$"] });
  });
});

describe("the comparisons catch a broken cache", () => {
  const MUTANTS: Record<string, Array<[string, string]>> = {
    "compiled paths keyed without end": [['(end ? "e" : "-") + path', "path"]],
    "compiled paths keyed without caseSensitive": [['(caseSensitive ? "c" : "-") + ', ""]],
    "branches of one routes array used for every array": [
      ["routeBranchesCache.get(routes)", "routeBranchesCache.get(routeBranchesCache)"],
      ["routeBranchesCache.set(routes, branches)", "routeBranchesCache.set(routeBranchesCache, branches)"],
    ],
    "branches kept in a browser": [
      ["if (isBrowserWindow()) {\n    return flattenAndRankRoutes", "if (false) {\n    return flattenAndRankRoutes"],
    ],
    "branches kept after routes are patched": [["  routeBranchesCache = new WeakMap();\n", ""]],
    "matches kept for one routes array used for every array": [
      ["routeMatchesCache.get(routes)", "routeMatchesCache.get(routeMatchesCache)"],
      ["routeMatchesCache.set(routes, kept)", "routeMatchesCache.set(routeMatchesCache, kept)"],
    ],
    "matches handed out without a copy": [["      return copyRouteMatches(kept);", "      return kept;"]],
    "matches copied without their params": [
      ["    return _extends({}, match, {\n      params: copy\n    });", "    return _extends({}, match);"],
    ],
    "matches kept in a browser": [["  if (isBrowserWindow()) {\n    return null;", "  if (false) {\n    return null;"]],
    "matches kept after routes are patched": [["  routeMatchesCache = new WeakMap();\n", ""]],
  };

  it.each(Object.entries(MUTANTS))("%s", { timeout: 60_000 }, async (_name, edits) => {
    let text = installedRouterText("router.js");
    for (const [from, to] of edits) {
      expect(text.split(from).length - 1, `"${from}" in the patched router.js`).toBe(1);
      text = text.replace(from, to);
    }
    const found = Object.values(await differencesFromPublished(text, "router.js")).flat();
    expect(found.length).toBeGreaterThan(0);
  });
});

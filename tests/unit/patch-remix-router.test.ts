import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { afterEach, describe, expect, it } from "vitest";
// @ts-ignore - a plain .mjs script
import { MARKER, ROUTER_FILES } from "../../scripts/patch-remix-router.mjs";

// Route matching cached on the server (ADR 009). The published UMD build is left unpatched, so it is
// the reference: the patched builds must match every path exactly as it does.

type Route = { id: string; path?: string; index?: boolean; caseSensitive?: boolean; children?: Route[] };
type Match = { params: Record<string, string | undefined>; pathname: string; pathnameBase: string; route: Route };
type MatchRoutes = (routes: Route[], location: string) => Match[] | null;

const require = createRequire(import.meta.url);
const files = ROUTER_FILES as string[];
const reference = require("@remix-run/router/dist/router.umd.js").matchRoutes as MatchRoutes;
const patchedCjs = require(files[1]).matchRoutes as MatchRoutes;
const patchedEsm = (await import(files[0])).matchRoutes as MatchRoutes;

/** Gatepost's route tree as Remix builds it from app/routes, plus the shapes it does not use yet. */
function gatepostRoutes(): Route[] {
  return [
    {
      id: "root",
      path: "",
      children: [
        { id: "routes/_index", index: true },
        { id: "routes/$", path: "*" },
        { id: "routes/f.$formId", path: "f/:formId" },
        { id: "routes/f.$formId_.thanks.$submissionId", path: "f/:formId/thanks/:submissionId" },
        { id: "routes/api.forms.$formId.submissions", path: "api/forms/:formId/submissions" },
        { id: "routes/api.turnstile.verify", path: "api/turnstile/verify" },
        { id: "routes/healthz", path: "healthz" },
        { id: "routes/admin_.login", path: "admin/login" },
        { id: "routes/admin_.logout", path: "admin/logout" },
        { id: "routes/admin_.export", path: "admin/export" },
        { id: "routes/optional", path: "docs/:lang?/guide" },
        { id: "routes/Case", path: "Case/Sensitive", caseSensitive: true },
        {
          id: "routes/admin",
          path: "admin",
          children: [
            { id: "routes/admin._index", index: true },
            { id: "routes/admin.audit", path: "audit" },
            { id: "routes/admin.erase", path: "erase" },
            { id: "routes/admin.submissions._index", path: "submissions", index: true },
            { id: "routes/admin.submissions.$id", path: "submissions/:id" },
          ],
        },
      ],
    },
  ];
}

const PATHS = [
  "/", "/f/contact", "/f/contact/", "/f/con%20tact", "/f/contact/thanks/0b6e", "/f/contact/thanks",
  "/api/forms/contact/submissions", "/api/turnstile/verify", "/healthz", "/HEALTHZ", "/admin", "/admin/",
  "/admin/login", "/admin/logout", "/admin/export", "/admin/audit", "/admin/erase", "/admin/submissions",
  "/admin/submissions/abc", "/admin/submissions/abc/more", "/docs/guide", "/docs/en/guide", "/case/sensitive",
  "/Case/Sensitive", "/nowhere", "/a/b/c", "//double//slash",
];

const shape = (matches: Match[] | null) =>
  matches?.map((m) => ({ id: m.route.id, params: m.params, pathname: m.pathname, pathnameBase: m.pathnameBase })) ?? null;

afterEach(() => {
  delete (globalThis as { document?: unknown }).document;
});

describe("patch-remix-router", () => {
  it("is applied to both installed router builds", () => {
    for (const file of files) {
      expect(readFileSync(file, "utf8").includes(MARKER), `${file}: run \`node scripts/patch-remix-router.mjs\` (npm install runs it)`).toBe(true);
    }
  });

  it("matches every path as the published router does, on the first call and on later (cached) ones", () => {
    const withoutSplat = gatepostRoutes();
    withoutSplat[0].children = withoutSplat[0].children!.filter((route) => route.path !== "*");
    for (const routes of [gatepostRoutes(), withoutSplat]) {
      for (const patched of [patchedEsm, patchedCjs]) {
        for (let pass = 0; pass < 3; pass++) {
          for (const path of PATHS) expect(shape(patched(routes, path)), `${path}, pass ${pass + 1}`).toEqual(shape(reference(routes, path)));
        }
      }
    }
    // A path nothing matches stays unmatched once remembered.
    expect(patchedEsm(withoutSplat, "/nowhere")).toBeNull();
  });

  it("matches a new tree of a known shape (Remix builds one per render) over that tree's own route objects", () => {
    for (const patched of [patchedEsm, patchedCjs]) {
      for (let pass = 0; pass < 3; pass++) {
        for (const path of PATHS) {
          const tree = gatepostRoutes();
          const matches = patched(tree, path);
          expect(shape(matches), `${path}, pass ${pass + 1}`).toEqual(shape(reference(gatepostRoutes(), path)));
          // Every matched route is an object of this call's tree, never one kept from an earlier tree.
          const objects = new Set<Route>();
          const collect = (routes: Route[]) => routes.forEach((r) => (objects.add(r), collect(r.children ?? [])));
          collect(tree);
          for (const match of matches ?? []) expect(objects.has(match.route)).toBe(true);
        }
      }
    }
    // Another shape (one route more) is matched on its own, not as the known one.
    const grown = gatepostRoutes();
    grown[0].children!.push({ id: "routes/late", path: "late" });
    expect(shape(patchedEsm(grown, "/late"))?.at(-1)?.id).toBe("routes/late");
  });

  it("compiles a path pattern as the published router does, whatever form its flags take", () => {
    const patched = require(files[1]) as { matchPath: (pattern: unknown, pathname: string) => unknown };
    const published = require("@remix-run/router/dist/router.umd.js") as typeof patched;
    for (const end of [undefined, true, false, 0, null, 1]) {
      for (const caseSensitive of [undefined, true, false]) {
        for (const pathname of ["/f/contact", "/f/contact/more", "/F/Contact"]) {
          const pattern = { path: "/f/:formId", end, caseSensitive };
          expect(patched.matchPath(pattern, pathname), `${JSON.stringify(pattern)} ${pathname}`).toEqual(published.matchPath(pattern, pathname));
        }
      }
    }
  });

  it("builds fresh match objects on every call, so no request sees another's", () => {
    const routes = gatepostRoutes();
    const first = patchedEsm(routes, "/f/contact")!;
    first[1].params.formId = "changed";
    expect(patchedEsm(routes, "/f/contact")![1].params.formId).toBe("contact");
    expect(patchedEsm(routes, "/f/other")![1].params.formId).toBe("other");
  });

  it("keeps a routes array's branches on the server, and recomputes them where a document exists", () => {
    const routes = gatepostRoutes();
    expect(shape(patchedEsm(routes, "/late"))?.at(-1)?.id).toBe("routes/$");
    // A route added in place after the first match is not seen on the server: the tree is cached.
    routes[0].children!.push({ id: "routes/late", path: "late" });
    expect(shape(patchedEsm(routes, "/late"))?.at(-1)?.id).toBe("routes/$");

    // In a browser, lazy route discovery adds routes in place, so nothing is kept there.
    (globalThis as { document?: unknown }).document = {};
    const browserRoutes = gatepostRoutes();
    expect(shape(patchedEsm(browserRoutes, "/late"))?.at(-1)?.id).toBe("routes/$");
    browserRoutes[0].children!.push({ id: "routes/late", path: "late" });
    expect(shape(patchedEsm(browserRoutes, "/late"))?.at(-1)?.id).toBe("routes/late");
  });
});

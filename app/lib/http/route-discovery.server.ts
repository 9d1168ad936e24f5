import { problemJson } from "~/lib/http/responses.server";

// Lazy route discovery (v3_lazyRouteDiscovery) asks /__manifest for the routes of the paths a page
// links to. Remix 2.17.5 matches each path and every one of its ancestors against the route tree, so one
// request of deep paths costs about a second of CPU (CVE-2026-55685 / GHSA-chx6-hx7r-mcp5, fixed
// upstream only in React Router 7.18). A Gatepost page links only to its own routes, at most 5 segments
// deep (admin/api/forms/:formId/publish), so a request beyond these bounds is refused before Remix
// expands it: inside them, a request costs less than a page view (ADR 055).

/** Where Remix answers route discovery: Gatepost has no basename. */
export const MANIFEST_PATHNAME = "/__manifest";

export const MANIFEST_LIMITS = {
  /** Segments in one path, as Remix counts the ancestors it matches. */
  depth: 6,
  /** Characters in one path. */
  pathLength: 256,
  /** Segments over all the paths of one request (a page of 200 forms asks for 400). */
  segments: 1000,
} as const;

/** The ancestors Remix matches for one requested path: one per "/"-separated segment. */
function segmentsOf(path: string): number {
  return (path.startsWith("/") ? path : `/${path}`).split("/").length - 1;
}

/** A 400 for a route-discovery request beyond MANIFEST_LIMITS; null for any other request, or to go on. */
export function refuseCostlyManifestRequest(request: Request): Response | null {
  // Every request comes through here: the URL is parsed only for the one path this is about.
  if (!request.url.includes(MANIFEST_PATHNAME)) return null;
  const url = new URL(request.url);
  if (url.pathname !== MANIFEST_PATHNAME) return null;
  let total = 0;
  for (const path of url.searchParams.getAll("p")) {
    const segments = segmentsOf(path);
    total += segments;
    if (path.length > MANIFEST_LIMITS.pathLength || segments > MANIFEST_LIMITS.depth || total > MANIFEST_LIMITS.segments) {
      return problemJson("route_discovery_too_large");
    }
  }
  return null;
}

import { problemJson } from "~/lib/http/responses.server";

// Lazy route discovery asks /__manifest for the routes of linked paths; Remix 2.17.5 matches every ancestor of
// each, so deep paths cost about a second of CPU (GHSA-chx6-hx7r-mcp5). Gatepost links at most 5 segments deep,
// so a request beyond these bounds is refused before Remix expands it (ADR 055).

export const MANIFEST_PATHNAME = "/__manifest";

export const MANIFEST_LIMITS = {
  /** Segments in one path, as Remix counts the ancestors it matches. */
  depth: 6,
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

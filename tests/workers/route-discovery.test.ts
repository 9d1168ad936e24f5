import { describe, expect, it } from "vitest";
import { serverBuild } from "../../functions/server-build";
import { MANIFEST_LIMITS } from "~/lib/http/route-discovery.server";
import { appFetch } from "./helpers";

// Lazy route discovery's /__manifest through the real Worker (functions/fetch.ts, then the built Remix
// server). Remix 2.17.5 matches every ancestor of every requested path (CVE-2026-55685 /
// GHSA-chx6-hx7r-mcp5): one request of a 3,800-segment path cost 925–943 ms of CPU in Node against this
// build (ADR 055). The guard refuses such requests before Remix sees them (its catalogue code is on the
// answer, and it answers before Remix's own version check), while what Gatepost's pages ask still works.

const VERSION = serverBuild.assets.version;

/** A discovery request as the browser sends it: p once per path, and the build's version. */
function manifestRequest(paths: string[], version = VERSION): Request {
  const query = [...paths.map((path) => `p=${path}`), `version=${version}`].join("&");
  return new Request(`http://localhost/__manifest?${query}`);
}

const deep = (segments: number) => `/${Array.from({ length: segments }, () => "a").join("/")}`;
const many = (count: number, depth: number) => Array.from({ length: count }, (_, i) => `/${i}${"/x".repeat(depth - 1)}`);

async function routeIds(response: Response): Promise<string[]> {
  return Object.keys((await response.json()) as Record<string, unknown>).sort();
}

describe("route discovery (/__manifest)", () => {
  it("answers the paths Gatepost's pages link to with their routes", async () => {
    const response = await appFetch(manifestRequest(["/f/contact", "/admin/forms/contact/destinations", "/"]));
    expect(response.status).toBe(200);
    expect(await routeIds(response)).toEqual(
      expect.arrayContaining(["routes/f.$formId", "routes/admin", "routes/admin.forms.$formId_.destinations", "routes/$"]),
    );
  });

  it("answers a page's worth of links: 200 forms listed on /", async () => {
    const response = await appFetch(manifestRequest(Array.from({ length: 200 }, (_, i) => `/f/form-${i}`)));
    expect(response.status).toBe(200);
    expect(await routeIds(response)).toContain("routes/f.$formId");
  });

  it.each([
    ["one path of 3,800 segments (the advisory's shape)", [deep(3_800)]],
    ["one path a segment deeper than any route", [deep(MANIFEST_LIMITS.depth + 1)]],
    ["one path longer than any link", [`/f/${"x".repeat(MANIFEST_LIMITS.pathLength)}`]],
    ["more segments in all than a page of links", many(MANIFEST_LIMITS.segments / 2 + 1, 2)],
    ["thousands of paths", many(3_000, 1)],
    ["deep paths without a leading slash", [deep(MANIFEST_LIMITS.depth + 1).slice(1)]],
  ])("refuses %s before Remix sees it", async (_name, paths) => {
    for (const version of [VERSION, "not-the-build"]) {
      const response = await appFetch(manifestRequest(paths, version));
      expect([response.status, response.headers.get("Gatepost-Error-Code")]).toEqual([400, "route_discovery_too_large"]);
    }
  });

  it("takes requests up to each bound", async () => {
    const atBounds = [
      [deep(MANIFEST_LIMITS.depth)],
      [`/${"x".repeat(MANIFEST_LIMITS.pathLength - 1)}`],
      many(Math.floor(MANIFEST_LIMITS.segments / MANIFEST_LIMITS.depth), MANIFEST_LIMITS.depth),
    ];
    for (const paths of atBounds) expect((await appFetch(manifestRequest(paths))).status).toBe(200);
  });

  it("leaves other paths alone, the query included", async () => {
    const response = await appFetch(new Request(`http://localhost/no/such/page?p=${deep(50)}&x=/__manifest`));
    expect(response.status).toBe(404);
    expect(response.headers.get("Gatepost-Error-Code")).not.toBe("route_discovery_too_large");
  });
});

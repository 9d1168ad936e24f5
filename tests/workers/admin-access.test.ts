import { beforeEach, describe, expect, it } from "vitest";
import { ADMIN_ROUTES, fullPath, type ManifestRoute } from "./admin-routes";
import { appFetch, countRows } from "./helpers";
import { adminEnv, adminGet, adminPost, clearAdminTables, sessionCookie, seedSubmission } from "./admin-helpers";

// Every /admin route and action, read from the built server's route manifest (so a route added
// later is covered without anyone remembering to list it), must refuse a request without a session,
// and every action must refuse a viewer and a cross-origin POST.

// The sign-in page is the way in, so it must answer without a session. Sign-out is the one action a
// viewer may take. Nothing else is exempt.
const PUBLIC = new Set(["routes/admin_.login"]);
const VIEWER_ALLOWED = new Set(["routes/admin_.logout"]);
// A download's action takes nothing: it answers every POST 405 with the download headers (ADR 051), session or not.
const METHOD_REFUSED = new Set(["routes/admin_.files.$submissionId.$fileId"]);
// The MCP server takes the API's bearer tokens only (ADR 124): a session cookie is ambient, so it counts for nothing there.
const TOKEN_ONLY = new Set(["routes/admin_.mcp"]);

const adminRoutes = ADMIN_ROUTES;
let submissionId = "";

function urlFor(route: ManifestRoute): string {
  const path = fullPath(route)
    .replace(/:id\b/, submissionId)
    .replace(/:[a-zA-Z]+/g, "contact");
  return route.index ? `${path}?index` : path;
}

beforeEach(async () => {
  await clearAdminTables();
  submissionId = await seedSubmission({ fields: { name: "Ada", email: "ada@example.org", message: "hi" }, quarantineReason: "honeypot" });
});

describe("the admin route manifest", () => {
  it("is what this test expects to cover (update the lists above when a route is added)", () => {
    expect(adminRoutes.map((r) => r.id).sort()).toEqual(
      expect.arrayContaining([
        "routes/admin",
        "routes/admin._index",
        "routes/admin.submissions._index",
        "routes/admin.submissions.$id",
        "routes/admin.erase",
        "routes/admin.audit",
        "routes/admin_.export",
        "routes/admin_.login",
        "routes/admin_.logout",
      ]),
    );
    expect(adminRoutes.filter((r) => r.module.action).length).toBeGreaterThanOrEqual(5);
  });

  it.each(adminRoutes.filter((r) => !PUBLIC.has(r.id) && (r.module.loader || r.module.default)).map((r) => [r.id, r]))(
    "GET %s without a session redirects to sign-in (pages) or answers 401 (data)",
    async (_id, route) => {
      const response = await appFetch(adminGet(urlFor(route)), await adminEnv());
      if (route.module.default) {
        expect(response.status).toBe(303);
        expect(response.headers.get("location")).toMatch(/^\/admin\/login\?next=/);
      } else {
        expect(response.status).toBe(401);
        expect(await response.text()).not.toContain("ada@example.org");
      }
    },
  );

  it.each(adminRoutes.filter((r) => METHOD_REFUSED.has(r.id)).map((r) => [r.id, r]))(
    "POST %s does nothing: 405 with or without a session",
    async (_id, route) => {
      const appEnv = await adminEnv();
      const fields = { intent: "delete" };
      const sessions: Record<string, string>[] = [{}, { Cookie: await sessionCookie("admin") }];
      for (const headers of sessions) {
        const response = await appFetch(adminPost(urlFor(route), fields, headers), appEnv);
        expect(response.status).toBe(405);
        expect(response.headers.get("content-security-policy")).toBe("sandbox; default-src 'none'");
      }
    },
  );

  it.each(adminRoutes.filter((r) => r.module.action && !PUBLIC.has(r.id) && !METHOD_REFUSED.has(r.id)).map((r) => [r.id, r]))(
    "POST %s refuses no session (401), a viewer (403) and another origin (403)",
    async (_id, route) => {
      const appEnv = await adminEnv();
      const fields = { intent: "delete", formId: "contact", email: "ada@example.org", confirm: "yes" };
      const anonymous = await appFetch(adminPost(urlFor(route), fields), appEnv);
      expect(anonymous.status).toBe(401);
      const viewer = await appFetch(adminPost(urlFor(route), fields, { Cookie: await sessionCookie("viewer") }), appEnv);
      if (TOKEN_ONLY.has(route.id)) {
        expect(viewer.status).toBe(401);
        const admin = await appFetch(adminPost(urlFor(route), fields, { Cookie: await sessionCookie("admin") }), appEnv);
        expect(admin.status).toBe(401);
        return;
      }
      if (!VIEWER_ALLOWED.has(route.id)) expect(viewer.status).toBe(403);
      const admin = await sessionCookie("admin");
      const auditBefore = await countRows("audit_log");
      // A foreign Origin is refused before Remix runs (the page-origin guard in responses.server.ts: origin_not_allowed); the
      // admin's own check answers 403 for a cross-site Sec-Fetch-Site or a POST without Origin.
      for (const [headers, status] of [
        [{ Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" }, 403],
        [{ Origin: "http://localhost", "Sec-Fetch-Site": "cross-site" }, 403],
        [{ Origin: "http://localhost", "Sec-Fetch-Site": "same-site" }, 403],
        [{ Origin: "", "Sec-Fetch-Site": "" }, 403],
      ] as const) {
        const request = adminPost(urlFor(route), fields, { Cookie: admin });
        for (const [k, v] of Object.entries(headers)) v ? request.headers.set(k, v) : request.headers.delete(k);
        const crossOrigin = await appFetch(request, appEnv);
        expect(crossOrigin.status).toBe(status);
        expect(await crossOrigin.text()).toMatch(/admin_cross_origin|origin_not_allowed/);
      }
      expect(await countRows("audit_log")).toBe(auditBefore);
      // None of the refused requests changed anything.
      const detail = await appFetch(adminGet(`/admin/submissions/${submissionId}`, admin), appEnv);
      expect(detail.status).toBe(200);
    },
  );
});

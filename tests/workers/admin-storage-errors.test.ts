import { API_TOKEN } from "./console-helpers";
import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { ADMIN_ROUTES, fullPath, type ManifestRoute } from "./admin-routes";
import { appFetch } from "./helpers";
import { adminEnv, clearAdminTables, SAME_ORIGIN, seedSubmission, sessionCookie } from "./admin-helpers";

// A busy or unreachable database is the database's trouble, not a bug: every console loader and action
// answers it with 503 storage_unavailable (try again), never a 500. Every /admin route is read from the
// built manifest, so a route added later is held to it without anyone listing it.

const BUSY = "D1_ERROR: database is locked: SQLITE_BUSY";

/** A D1 binding whose every query fails as a busy database does, at the first statement it runs. */
function busyDb(): D1Database {
  const fail = () => Promise.reject(new Error(BUSY));
  const statement: D1PreparedStatement = {
    bind: () => statement,
    first: fail,
    all: fail,
    run: fail,
    raw: fail,
  } as unknown as D1PreparedStatement;
  return { prepare: () => statement, batch: fail, exec: fail, dump: fail, withSession: () => busyDb() } as unknown as D1Database;
}

let submissionId = "";
let cookie = "";
beforeEach(async () => {
  await clearAdminTables();
  submissionId = await seedSubmission({
    fields: { name: "Ada", email: "ada@example.org", message: "hi" },
    deliveries: [{ status: "dead" }],
  });
  cookie = await sessionCookie("admin");
});

function urlFor(route: ManifestRoute): string {
  const path = fullPath(route)
    .replace(/:id\b/, submissionId)
    .replace(/:[a-zA-Z]+/g, "contact");
  return `http://localhost${path}?form=contact${route.index ? "&index" : ""}`;
}

async function expectStorageUnavailable(request: Request) {
  const logged = vi.spyOn(console, "error").mockImplementation(() => {});
  const response = await appFetch(request, { ...(await adminEnv()), DB: busyDb() });
  const label = `${request.method} ${request.url}`;
  expect(response.status, label).toBe(503);
  expect(response.headers.get("Gatepost-Error-Code"), label).toBe("storage_unavailable");
  // The cause is logged for the operator; the answer never carries it.
  expect(await response.text(), label).not.toContain("SQLITE_BUSY");
  expect(logged.mock.calls.flat().join(" "), label).toContain("SQLITE_BUSY");
  logged.mockRestore();
}

describe("a busy database in the console", () => {
  it("covers every console route that has a loader or an action", () => {
    expect(ADMIN_ROUTES.filter((r) => r.module.loader).length).toBeGreaterThanOrEqual(7);
    expect(ADMIN_ROUTES.filter((r) => r.module.action).length).toBeGreaterThanOrEqual(5);
    // The real database is untouched by these tests.
    expect(env.DB).toBeDefined();
  });

  // The MCP server takes tokens, not the session (ADR 124): its own test is below.
  const SESSION_ROUTES = ADMIN_ROUTES.filter((r) => r.id !== "routes/admin_.mcp");

  it.each(SESSION_ROUTES.filter((r) => r.module.loader).map((r) => [r.id, r]))(
    "GET %s answers 503 storage_unavailable",
    async (_id, route) => {
      const headers = { "Sec-Fetch-Site": "same-origin", Cookie: cookie };
      await expectStorageUnavailable(new Request(urlFor(route), { headers }));
      // The same as the data request a client-side navigation makes.
      const data = `${urlFor(route)}&_data=${encodeURIComponent(route.id)}`;
      await expectStorageUnavailable(new Request(data, { headers }));
    },
  );

  // A download's action only answers 405 and reads nothing (admin-access.test.ts).
  it.each(SESSION_ROUTES.filter((r) => r.module.action && !r.id.startsWith("routes/admin_.files.")).map((r) => [r.id, r]))(
    "POST %s answers 503 storage_unavailable",
    async (_id, route) => {
      const bodies = [
        "intent=redeliver",
        "intent=release",
        "intent=delete",
        "intent=erase&confirm=yes",
        "intent=find",
        "intent=everywhere",
      ];
      for (const intent of bodies) {
        const body = `${intent}&formId=contact&email=ada@example.org&password=wrong&next=/admin`;
        const headers = {
          ...SAME_ORIGIN,
          "content-type": "application/x-www-form-urlencoded",
          "CF-Connecting-IP": "198.51.100.7",
          Cookie: cookie,
        };
        await expectStorageUnavailable(new Request(urlFor(route), { method: "POST", body, headers }));
      }
    },
  );

  it("answers an MCP tool call with a token as a tool error carrying storage_unavailable", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_forms", arguments: {} } });
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${API_TOKEN}`,
      "CF-Connecting-IP": "198.51.100.7",
    };
    const request = new Request("http://localhost/admin/mcp", { method: "POST", body, headers });
    const response = await appFetch(request, { ...(await adminEnv({ ADMIN_API_TOKEN: API_TOKEN })), DB: busyDb() });
    // MCP answers a tool's failure inside its result (the transport's 200), with the catalogue's code.
    const text = await response.text();
    expect(JSON.parse(text).result).toMatchObject({
      isError: true,
      _meta: { "gatepost/code": "storage_unavailable", "gatepost/status": 503 },
    });
    expect(text).not.toContain("SQLITE_BUSY");
    expect(logged.mock.calls.flat().join(" ")).toContain("SQLITE_BUSY");
    logged.mockRestore();
  });
});

import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { adminGet, clearAdminTables, seedSubmission, sessionCookie } from "./admin-helpers";
import { api, API_TOKEN, consoleAdminEnv, makeApiToken } from "./console-helpers";
import { appFetch, sink, sinkEnv } from "./helpers";

// The admin API's submission calls (docs/api.md): keyset pages that neither skip nor repeat while
// submissions arrive, one submission in full, delete and redeliver with the console's roles and audit.

beforeEach(async () => {
  await clearAdminTables();
  await env.DB.prepare("DELETE FROM admin_api_tokens").run();
  await sink.reset();
});

interface Page {
  items: Array<{ id: string; form: string; receivedAt: string; state: string; test: boolean; fields: Record<string, unknown> }>;
  cursor: string | null;
}

async function list(query: string, token?: string): Promise<Page> {
  const response = await api("GET", `/admin/api/submissions${query}`, token ? { token } : {});
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as Page;
}

async function auditActions() {
  const { results } = await env.DB.prepare("SELECT action, target, actor, detail FROM audit_log ORDER BY id").all();
  return results as Array<{ action: string; target: string; actor: string; detail: string | null }>;
}

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();

describe("GET /admin/api/submissions", () => {
  it("pages newest first by cursor, with no gap or repeat while new submissions arrive", async () => {
    const seeded: string[] = [];
    // Pairs share a received_at, so the order's tie-break (id) is exercised too.
    for (let i = 0; i < 40; i++)
      seeded.push(
        await seedSubmission({ fields: { name: `n${i}`, email: "a@example.org", message: "m" }, receivedAt: at(Math.floor(i / 2)) }),
      );
    const seen: string[] = [];
    const late: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Page = await list(`?limit=7${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...page.items.map((item) => item.id));
      cursor = page.cursor;
      pages++;
      // Arrivals between pages: a new one (above the walk: not in it), and one stored late with a time
      // below every seeded one (ahead of the walk: met once, at the end).
      await seedSubmission({ fields: { name: `new${pages}`, email: "b@example.org", message: "m" }, receivedAt: at(100 + pages) });
      late.push(
        await seedSubmission({
          fields: { name: `late${pages}`, email: "b@example.org", message: "m" },
          receivedAt: `2025-12-31T23:${String(59 - pages).padStart(2, "0")}:00.000Z`,
        }),
      );
    } while (cursor !== null && pages < 20);
    expect(cursor).toBeNull();
    expect(new Set(seen).size).toBe(seen.length);
    const walked = late.slice(0, -1);
    expect([...seen].sort()).toEqual([...seeded, ...walked].sort());
    expect(seen.slice(-walked.length)).toEqual(walked);
    const times = seen.slice(0, seeded.length).map((id) => seeded.indexOf(id));
    // Newest first: seed index (which grows with received_at) never rises from one item to the next pair.
    for (let i = 1; i < times.length; i++) expect(Math.floor(times[i] / 2)).toBeLessThanOrEqual(Math.floor(times[i - 1] / 2));
  });

  it("filters by form, status, dates and text with the console's names", async () => {
    const dead = await seedSubmission({
      fields: { name: "Zoë", email: "z@example.org", message: "m" },
      receivedAt: at(1),
      deliveries: [{ status: "dead" }],
    });
    const delivered = await seedSubmission({
      fields: { name: "Bob", email: "b@example.org", message: "m" },
      receivedAt: "2026-02-03T10:00:00.000Z",
      deliveries: [{ status: "delivered" }],
    });
    const other = await seedSubmission({ formId: "newsletter", fields: { email: "n@example.org" }, receivedAt: at(2) });
    const ids = async (query: string) => (await list(query)).items.map((item) => item.id);
    expect(await ids("?status=dead")).toEqual([dead]);
    expect(await ids("?form=newsletter")).toEqual([other]);
    expect(await ids("?from=2026-02-01&to=2026-02-28")).toEqual([delivered]);
    expect(await ids("?to=2026-01-31&form=contact")).toEqual([dead]);
    expect(await ids(`?q=${encodeURIComponent("ZOë")}`)).toEqual([dead]);
    const [item] = (await list("?status=dead")).items;
    expect(item).toEqual({
      id: dead,
      form: "contact",
      version: null,
      receivedAt: at(1),
      state: "dead",
      test: false,
      fields: { name: "Zoë", email: "z@example.org", message: "m" },
    });
  });

  it.each(["status=lost", "from=2026-02-31", "limit=0", "limit=101", "cursor=%%%", "cursor=bm90LWEtY3Vyc29y"])(
    "answers %s with 400 problem+json",
    async (query) => {
      const response = await api("GET", `/admin/api/submissions?${query}`);
      expect(response.status).toBe(400);
      expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(((await response.json()) as { code: string }).code).toBe("admin_bad_request");
    },
  );
});

describe("one submission", () => {
  it("shows its fields, state, version, files and deliveries", async () => {
    const file = { id: "f".repeat(32), name: "cv.pdf", type: "application/pdf", size: 12, sha256: "a".repeat(64) };
    const id = await seedSubmission({
      formId: "apply",
      fields: { name: "Ada", cv: [file] },
      receivedAt: at(3),
      deliveries: [{ status: "dead", lastError: "HTTP 500", attempts: [{ httpStatus: 500 }] }],
    });
    const response = await api("GET", `/admin/api/submissions/${id}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      id,
      form: "apply",
      version: null,
      state: "dead",
      fields: { name: "Ada", cv: [file] },
      quarantineReason: null,
    });
    expect(body.files).toEqual([{ field: "cv", ...file }]);
    expect(body.deliveries).toEqual([
      expect.objectContaining({ destination: "webhook", status: "dead", attempts: 1, lastError: "HTTP 500", deliveredAt: null }),
    ]);
    expect((await api("GET", "/admin/api/submissions/nope")).status).toBe(404);
  });

  it("deletes for an admin (204, audited with the token), never for a viewer", async () => {
    const id = await seedSubmission({ fields: { name: "Ada" }, deliveries: [{ status: "delivered" }] });
    const viewer = await makeApiToken("viewer");
    const refused = await api("DELETE", `/admin/api/submissions/${id}`, { token: viewer });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe("admin_forbidden");
    expect((await api("GET", `/admin/api/submissions/${id}`, { token: viewer })).status).toBe(200);
    const deleted = await api("DELETE", `/admin/api/submissions/${id}`);
    expect(deleted.status).toBe(204);
    expect((await api("GET", `/admin/api/submissions/${id}`)).status).toBe(404);
    expect((await api("DELETE", `/admin/api/submissions/${id}`)).status).toBe(404);
    const deletes = (await auditActions()).filter((row) => row.action === "submission.delete");
    expect(deletes.map((row) => [row.target, row.actor])).toEqual([
      [id, "token:ADMIN_API_TOKEN"],
      [id, "token:ADMIN_API_TOKEN"],
    ]);
  });

  it("redelivers like the console: 202 with the count, refusals with their codes, each audited", async () => {
    const dead = await seedSubmission({ fields: { name: "Ada" }, deliveries: [{ status: "dead" }] });
    const bare = await seedSubmission({ fields: { name: "Bob" } });
    const viewer = await makeApiToken("viewer");
    expect((await api("POST", `/admin/api/submissions/${dead}/redeliver`, { token: viewer })).status).toBe(403);
    const appEnv = sinkEnv({ ADMIN_API_TOKEN: API_TOKEN });
    const queued = await api("POST", `/admin/api/submissions/${dead}/redeliver`, { appEnv });
    expect(queued.status).toBe(202);
    expect(await queued.json()).toEqual({ id: dead, requeued: 1, keptConfirmations: 0 });
    const state = await env.DB.prepare("SELECT status FROM deliveries WHERE submission_id = ?1").bind(dead).first();
    expect(state?.status).not.toBe("dead");
    const none = await api("POST", `/admin/api/submissions/${bare}/redeliver`);
    expect(none.status).toBe(409);
    expect(((await none.json()) as { code: string }).code).toBe("redelivery_no_destination");
    expect((await api("POST", "/admin/api/submissions/nope/redeliver")).status).toBe(404);
    expect((await api("GET", `/admin/api/submissions/${dead}/redeliver`)).status).toBe(405);
    const redelivers = (await auditActions()).filter((row) => row.action === "submission.redeliver");
    expect(redelivers.map((row) => [row.target, JSON.parse(row.detail ?? "{}")])).toEqual([
      [dead, { requeued: 1 }],
      [bare, { refused: "redelivery_no_destination" }],
      ["nope", { refused: "redelivery_unknown_submission" }],
    ]);
  });
});

describe("who may call it", () => {
  it("answers 401 without a token, and takes the console's session only from the console's pages", async () => {
    for (const path of ["/admin/api/submissions", "/admin/api/submissions/x"]) {
      const response = await api("GET", path, { token: null });
      expect(response.status).toBe(401);
      expect(((await response.json()) as { code: string }).code).toBe("admin_unauthenticated");
    }
    const appEnv = await consoleAdminEnv();
    const cookie = await sessionCookie("viewer", appEnv);
    expect((await appFetch(adminGet("/admin/api/submissions", cookie), appEnv)).status).toBe(200);
    const crossSite = await appFetch(adminGet("/admin/api/submissions", cookie, { "Sec-Fetch-Site": "cross-site" }), appEnv);
    expect(crossSite.status).toBe(403);
    expect(((await crossSite.json()) as { code: string }).code).toBe("admin_cross_origin");
  });
});

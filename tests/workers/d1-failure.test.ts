import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { expectConsoleErrors } from "../support/fail-on-console";
import { adminEnv, adminGet, adminPost, clearAdminTables, seedSubmission, sessionCookie } from "./admin-helpers";
import { apiPost, appFetch, countingDb, countRows, sink, sinkEnv, standin, standinToken, type TripFailure } from "./helpers";

// The one rule for D1 failures (storage/d1-failure.server.ts, docs/decisions/087) through the real
// Worker: a transient failure of the accept batch is tried again and stores the submission exactly
// once, also when the first try committed and only its answer was lost; anything else is a 503 at
// once; console reads are tried again, console writes are not.

const VALID = { name: "Ada Lovelace", email: "ada@example.org", message: "Hello from the analytical engine." };
const LOST = "D1_ERROR: Network connection lost.";
const QUEUED = "D1_ERROR: D1 DB is overloaded. Too many requests queued.";
const isAcceptBatch = (sqls: string[]) => sqls.some((s) => s.startsWith("INSERT INTO submissions"));

beforeEach(async () => {
  await standin.reset();
  await sink.reset();
  await clearAdminTables();
});

/** Fails the first `times` accept batches as `when` says, with `message`; counts every accept batch tried. */
function failingAccepts(when: "before" | "after", message: string, times = 1) {
  let tries = 0;
  const counted = countingDb(env.DB, (sqls): TripFailure => {
    if (!isAcceptBatch(sqls)) return null;
    tries++;
    return tries <= times ? { when, message } : null;
  });
  return { db: counted.db, tries: () => tries };
}

async function post(db: D1Database, headers: Record<string, string> = {}) {
  const response = await appFetch(apiPost("contact", { ...VALID, "cf-turnstile-response": standinToken() }, { headers }), {
    ...sinkEnv(),
    DB: db,
  });
  return { response, body: (await response.json()) as { id?: string; code?: string } };
}

describe("the accept batch", () => {
  it.each([
    ["without an idempotency key", {}],
    ["with an idempotency key", { "Idempotency-Key": "0d6f3a43-5f0e-4a57-9d3b-4c2f7f1a8e21" }],
  ])("stores once when it committed and its answer was lost, %s", async (_label, headers) => {
    const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
    const failing = failingAccepts("after", LOST);
    const { response, body } = await post(failing.db, headers);
    expect(response.status, JSON.stringify(body)).toBe(201);
    expect(failing.tries()).toBe(2);
    expect(await countRows("submissions")).toBe(1);
    expect(await countRows("deliveries")).toBe(1);
    const row = await env.DB.prepare("SELECT id FROM submissions").first<{ id: string }>();
    expect(body.id).toBe(row?.id);
    // Delivered once, after the response, under the one webhook-id.
    expect((await sink.state()).unique).toHaveLength(1);
    expect(warned.mock.calls.flat().join(" ")).toContain("Network connection lost");
  });

  it("stores once when the first try failed before it ran", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const failing = failingAccepts("before", "D1_ERROR: D1 DB reset because its code was updated.");
    const { response } = await post(failing.db);
    expect(response.status).toBe(201);
    expect(failing.tries()).toBe(2);
    expect(await countRows("submissions")).toBe(1);
    expect(await countRows("deliveries")).toBe(1);
  });

  it("answers 503 after three transient failures, having stored nothing", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const logged = expectConsoleErrors(/accept batch failed/);
    const failing = failingAccepts("before", LOST, 10);
    const { response, body } = await post(failing.db);
    expect(response.status).toBe(503);
    expect(body.code).toBe("storage_unavailable");
    expect(failing.tries()).toBe(3);
    expect(await countRows("submissions")).toBe(0);
    expect(logged()).toHaveLength(1);
  });

  it("answers 503 at once for a failure the platform does not call transient", async () => {
    const logged = expectConsoleErrors(/accept batch failed: unavailable/);
    const failing = failingAccepts("before", QUEUED, 10);
    const { response, body } = await post(failing.db);
    expect(response.status).toBe(503);
    expect(body.code).toBe("storage_unavailable");
    expect(failing.tries()).toBe(1);
    expect(logged()).toHaveLength(1);
  });
});

describe("the console", () => {
  it("tries a read again after a transient failure and shows the page", async () => {
    await seedSubmission({ fields: VALID });
    const appEnv = await adminEnv();
    const cookie = await sessionCookie("admin", appEnv);
    let failed = 0;
    const counted = countingDb(env.DB, (sqls): TripFailure => {
      if (failed === 0 && sqls.some((s) => s.includes("FROM submissions"))) {
        failed++;
        return { when: "before", message: "D1_ERROR: Internal error while starting up D1 DB storage caused object to be reset." };
      }
      return null;
    });
    const response = await appFetch(adminGet("/admin/submissions", cookie), { ...appEnv, DB: counted.db });
    expect(response.status).toBe(200);
    expect(failed).toBe(1);
    expect(await response.text()).toContain("Ada Lovelace");
  });

  it("never repeats a write whose outcome is unknown: 503, and the delete ran once", async () => {
    const id = await seedSubmission({ fields: VALID });
    const appEnv = await adminEnv();
    const cookie = await sessionCookie("admin", appEnv);
    const logged = expectConsoleErrors(/console storage unavailable/);
    let deletes = 0;
    const counted = countingDb(env.DB, (sqls): TripFailure => {
      if (!sqls.some((s) => s.startsWith("DELETE FROM submissions"))) return null;
      deletes++;
      return { when: "after", message: LOST };
    });
    const response = await appFetch(adminPost(`/admin/submissions/${id}`, { intent: "delete" }, { Cookie: cookie }), {
      ...appEnv,
      DB: counted.db,
    });
    expect(response.status).toBe(503);
    expect(deletes).toBe(1);
    expect(await countRows("submissions")).toBe(0);
    expect(logged()).toHaveLength(1);
  });
});

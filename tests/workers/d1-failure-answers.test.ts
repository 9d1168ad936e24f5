import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { replayDead } from "~/lib/delivery/replay.server";
import { forgetFormCatalog, loadFormCatalog } from "~/lib/forms/catalog.server";
import { budgetFor } from "~/lib/platform/budget.server";
import { answerAsDownload } from "~/lib/uploads/download.server";
import { expectConsoleErrors } from "../support/fail-on-console";
import { clearAdminTables, seedSubmission } from "./admin-helpers";
import { appFetch, countingDb, testEnv, type TripFailure } from "./helpers";

// Replay, downloads, the form catalogue and the thanks page answer a failed D1 call as the one rule says
// (storage/d1-failure.server.ts, ADR 087): a transient failure of a read is tried again; D1 that cannot
// answer is 503 storage_unavailable (the catalogue: the forms it has, marked incomplete); a bug, our
// own SQL, is a 500 and never reads as a busy database.

const UNAVAILABLE = "D1_ERROR: D1 DB is overloaded. Too many requests queued.";
const TRANSIENT = "D1_ERROR: Network connection lost.";
const BUG = "D1_ERROR: no such column: nope: SQLITE_ERROR";
const VALID = { name: "Ada Lovelace", email: "ada@example.org", message: "Hello." };

/** env.DB whose round trips touching `table` fail with `message`, the first `times` of them. */
function failing(table: RegExp, message: string, times = Infinity) {
  let failed = 0;
  const counted = countingDb(env.DB, (sqls): TripFailure => {
    if (failed >= times || !sqls.some((s) => table.test(s))) return null;
    failed++;
    return { when: "before", message };
  });
  return { db: counted.db, failed: () => failed };
}

beforeEach(async () => {
  await clearAdminTables();
  forgetFormCatalog();
});

describe("the thanks page", () => {
  const thanks = async (db: D1Database, id: string) =>
    appFetch(new Request(`http://localhost/f/contact/thanks/${id}`), { ...testEnv(), DB: db });

  it("reads again after a transient failure and shows the page", async () => {
    const id = await seedSubmission({ fields: VALID });
    const db = failing(/FROM submissions/, TRANSIENT, 1);
    const response = await thanks(db.db, id);
    expect([response.status, db.failed()]).toEqual([200, 1]);
  });

  it("answers 503 storage_unavailable when D1 cannot answer", async () => {
    const id = await seedSubmission({ fields: VALID });
    const logged = expectConsoleErrors(/thanks page failed: unavailable/);
    const response = await thanks(failing(/FROM submissions/, UNAVAILABLE).db, id);
    expect([response.status, response.headers.get("Gatepost-Error-Code")]).toEqual([503, "storage_unavailable"]);
    expect(logged()).toHaveLength(1);
  });

  it("answers a bug with 500, not a busy database's 503", async () => {
    const id = await seedSubmission({ fields: VALID });
    const logged = expectConsoleErrors(/no such column/);
    const response = await thanks(failing(/FROM submissions/, BUG).db, id);
    expect(response.status).toBe(500);
    expect(logged().length).toBeGreaterThan(0);
  });
});

describe("the form catalogue", () => {
  const load = (db: D1Database) => loadFormCatalog({ db, encryptionKeys: [], nowMs: Date.now() });

  it("reads again after a transient failure", async () => {
    const db = failing(/FROM forms/, TRANSIENT, 1);
    expect([(await load(db.db)).incomplete, db.failed()]).toEqual([false, 1]);
  });

  it("serves the form files, marked incomplete, when D1 cannot answer", async () => {
    const logged = expectConsoleErrors(/form catalog could not be read/);
    const catalog = await load(failing(/FROM forms/, UNAVAILABLE).db);
    expect([catalog.incomplete, catalog.forms.has("contact")]).toEqual([true, true]);
    expect(logged()).toHaveLength(1);
  });

  it("throws a bug (a 500), never serving it as an incomplete catalogue", async () => {
    await expect(load(failing(/FROM forms/, BUG).db)).rejects.toThrow(/no such column/);
  });
});

describe("replay of dead deliveries", () => {
  const replay = (db: D1Database) => replayDead(db, { formId: "contact" }, { nowMs: Date.now(), budget: budgetFor("free") });

  it("answers storage_unavailable when D1 cannot answer", async () => {
    const logged = expectConsoleErrors(/replayDead failed: unavailable/);
    expect(await replay(failing(/deliveries/, UNAVAILABLE).db)).toEqual({ ok: false, code: "storage_unavailable" });
    expect(logged()).toHaveLength(1);
  });

  it("throws a bug (a 500) instead of calling it storage_unavailable", async () => {
    await expect(replay(failing(/deliveries/, BUG).db)).rejects.toThrow(/no such column/);
  });
});

describe("a download", () => {
  const download = (message: string) =>
    answerAsDownload(async () => {
      await failing(/FROM/, message).db.prepare("SELECT 1 FROM submissions").first();
      return new Response("bytes");
    });

  it("answers 503 storage_unavailable, with the download headers, when D1 cannot answer", async () => {
    const logged = expectConsoleErrors(/download failed: unavailable/);
    const response = await download(UNAVAILABLE);
    expect([response.status, response.headers.get("Gatepost-Error-Code"), response.headers.get("X-Content-Type-Options")]).toEqual([
      503,
      "storage_unavailable",
      "nosniff",
    ]);
    expect(logged()).toHaveLength(1);
  });

  it("lets a bug through (a 500)", async () => {
    await expect(download(BUG)).rejects.toThrow(/no such column/);
  });
});

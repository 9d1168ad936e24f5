import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { findByEmail } from "~/lib/submissions/erase.server";
import { budgetFor } from "~/lib/platform/budget.server";
import { readMaintenanceDue } from "~/lib/storage/maintenance-due.server";
import { indexPendingSubmissions, indexSubmissionChunk, INDEX_CHUNK } from "~/lib/storage/search-index.server";
import { listSubmissionPage, PENDING_CAP, type SubmissionFilter } from "~/lib/storage/submission-list.server";
import { adminGet, adminEnv, sessionCookie } from "./admin-helpers";
import { api } from "./console-helpers";
import { appFetch, clearTables, formPost, standin, standinToken } from "./helpers";
import { clearScale, expectKeptRight, meteredDb, seedScale, VIEW_ROWS_BUDGET } from "./scale-helpers";

// New submissions reach the search index on the cron, not in the accept batch (docs/decisions/101):
// until the job index-search takes them, search and erase read them the old way, with the index's own
// whole-word matching, so an answer is the same before and after the job; a search reads at most
// PENDING_CAP of them and says when it left newer ones out.

async function accept(fields: Record<string, string>): Promise<void> {
  const res = await appFetch(formPost("/f/contact", { ...fields, "cf-turnstile-response": standinToken() }));
  expect(res.status).toBe(303);
}

const counts = async () => {
  const [fts, cursor, top] = await env.DB.batch([
    env.DB.prepare("SELECT count(*) AS n FROM submissions_fts"),
    env.DB.prepare("SELECT indexed_up_to AS n FROM search_index"),
    env.DB.prepare("SELECT coalesce(max(rowid), 0) AS n FROM submissions"),
  ]);
  const n = (r: D1Result) => (r.results[0] as { n: number }).n;
  return { indexed: n(fts), cursor: n(cursor), top: n(top) };
};

const ids = async (filter: SubmissionFilter) =>
  (await listSubmissionPage(env.DB, filter, null)).items.map((item) => item.submission.fields.name);

beforeEach(async () => {
  await standin.reset();
  await clearScale();
  await clearTables();
});

describe("the search index, filled by the cron", () => {
  it("leaves an accepted post out of the index until the job runs, and search finds it the same either way", async () => {
    await accept({ name: "Zoë Jordan", email: "zoe@example.org", message: "Second floor, near the lifts." });
    await accept({ name: "Ada Lovelace", email: "ada@example.org", message: "An analytical engine." });
    expect(await counts()).toMatchObject({ indexed: 0, cursor: 0 });
    expect((await readMaintenanceDue(env.DB, { nowMs: Date.now(), exportsExpireBeforeMs: 0 })).unindexed).toBe(true);

    // Whole words, folded: "ZOË" finds Zoë, "an" is inside "Jordan" and "analytical" but no word of either
    // but Ada's "An"; every word is required.
    const queries = ["ZOË", "an", "lifts", "zoe example org", "jordan ada", "ANALYTICAL engine", "floor"];
    const before = await Promise.all(queries.map((q) => ids({ q })));
    expect(before).toEqual([["Zoë Jordan"], ["Ada Lovelace"], ["Zoë Jordan"], ["Zoë Jordan"], [], ["Ada Lovelace"], ["Zoë Jordan"]]);

    expect(await indexPendingSubmissions(env.DB, budgetFor("free"))).toMatchObject({ more: false });
    const { top, ...after } = await counts();
    expect(after).toEqual({ indexed: 2, cursor: top });
    expect((await readMaintenanceDue(env.DB, { nowMs: Date.now(), exportsExpireBeforeMs: 0 })).unindexed).toBe(false);
    expect(await Promise.all(queries.map((q) => ids({ q })))).toEqual(before);
  });

  it("indexes in chunks with a kept cursor, and keeps counts and index right", async () => {
    await seedScale(1_200, { audit: 0 });
    // As if every row had just arrived: none indexed.
    await env.DB.batch([
      env.DB.prepare("INSERT INTO submissions_fts (submissions_fts) VALUES ('delete-all')"),
      env.DB.prepare("UPDATE search_index SET indexed_up_to = 0"),
    ]);
    const first = await indexSubmissionChunk(env.DB);
    expect(first.more).toBe(true);
    expect((await counts()).indexed).toBeLessThanOrEqual(INDEX_CHUNK);
    expect(first.upTo).toBe(
      (await env.DB.prepare(`SELECT rowid AS r FROM submissions ORDER BY rowid LIMIT 1 OFFSET ${INDEX_CHUNK - 1}`).first<{ r: number }>())
        ?.r,
    );
    // The Free plan's budget stops a run after its share; the next run goes on from the cursor.
    const budget = budgetFor("free");
    const rest = await indexPendingSubmissions(env.DB, budget);
    expect(rest.more).toBe(false);
    await expectKeptRight();
    expect(await ids({ q: "rare" })).toHaveLength(2);
  });

  it("reads at most PENDING_CAP rows not yet indexed, within the view budget, and says it left newer ones out", async () => {
    await seedScale(PENDING_CAP * 3, { audit: 0 });
    await env.DB.batch([
      env.DB.prepare("INSERT INTO submissions_fts (submissions_fts) VALUES ('delete-all')"),
      env.DB.prepare("UPDATE search_index SET indexed_up_to = 0"),
    ]);
    const metered = meteredDb(env.DB);
    const page = await listSubmissionPage(metered.db, { q: "hello" }, null);
    expect(metered.rowsRead()).toBeLessThanOrEqual(VIEW_ROWS_BUDGET);
    expect(page.unsearched).toBe(true);
    // The oldest PENDING_CAP rows (the next the cron takes), newest of them first.
    expect(page.items[0].submission.fields.name).toBe(`Person ${PENDING_CAP * 2}`);

    const cookie = await sessionCookie("viewer");
    const html = await (await appFetch(adminGet("/admin/submissions?q=hello", cookie), await adminEnv())).text();
    expect(html).toContain("not in the search index yet");
    const listed = (await (await api("GET", "/admin/api/submissions?q=hello&limit=1")).json()) as { unsearched?: boolean };
    expect(listed.unsearched).toBe(true);

    await indexPendingSubmissions(env.DB, budgetFor("paid"));
    const indexed = await listSubmissionPage(env.DB, { q: "hello" }, null);
    expect(indexed.unsearched).toBeUndefined();
    expect(indexed.items[0].submission.fields.name).toBe("Person 0");
    expect(await (await api("GET", "/admin/api/submissions?q=hello&limit=1")).json()).not.toHaveProperty("unsearched");
  });

  it("erases by e-mail on both sides of the cursor", async () => {
    await accept({ name: "Old", email: "Grace@Example.org", message: "Indexed before the rest." });
    await indexPendingSubmissions(env.DB, budgetFor("free"));
    await accept({ name: "New", email: "grace@example.org", message: "not yet indexed" });
    await accept({ name: "Other", email: "ada@example.org", message: "grace@example.org is my friend" });
    expect((await counts()).indexed).toBe(1);
    const found = await findByEmail(env.DB, "grace@example.org");
    const names = await env.DB.prepare(
      `SELECT json_extract(fields, '$.name') AS name FROM submissions WHERE id IN (SELECT value FROM json_each(?1)) ORDER BY 1`,
    )
      .bind(JSON.stringify(found.map((f) => f.id)))
      .all<{ name: string }>();
    // "Other" names the address in its message, not as a value of its own: only a whole value is the address.
    expect(names.results.map((r) => r.name)).toEqual(["New", "Old"]);
  });

  it("follows the largest rowid down after the newest rows are deleted, so a reused rowid is still indexed", async () => {
    for (const name of ["One", "Two", "Three"]) await accept({ name, email: "x@example.org", message: `Row ${name}, a message.` });
    await indexPendingSubmissions(env.DB, budgetFor("free"));
    const { top } = await counts();
    // Deleting rows never indexed changes nothing in the index; deleting the newest lowers the cursor.
    await env.DB.prepare("DELETE FROM submissions WHERE rowid >= ?1")
      .bind(top - 1)
      .run();
    expect(await counts()).toEqual({ indexed: 1, cursor: top - 2, top: top - 2 });
    await accept({ name: "Four", email: "x@example.org", message: "Row four, a message." });
    expect((await counts()).top).toBe(top - 1); // the rowid Two had
    expect(await ids({ q: "four" })).toEqual(["Four"]);
    await indexPendingSubmissions(env.DB, budgetFor("free"));
    expect(await counts()).toEqual({ indexed: 2, cursor: top - 1, top: top - 1 });
    expect(await ids({ q: "row" })).toEqual(["Four", "One"]);
  });
});

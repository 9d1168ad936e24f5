import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { MAX_SEARCH_WORDS, wordsOf } from "~/lib/storage/search-text.server";
import { listSubmissionPage } from "~/lib/storage/submission-list.server";
import { adminEnv, adminGet, clearAdminTables, sessionCookie } from "./admin-helpers";
import { api } from "./console-helpers";
import { appFetch, clearTables, countingDb, formPost, standin, standinToken } from "./helpers";

// A search is folded, its repeated words counted once, and at most MAX_SEARCH_WORDS distinct words are
// taken: past that a clear 400 (search_too_many_words), never a 500 from D1's limits (100 bound
// parameters, an expression depth of 100). Issue 51, D1: 96 words, or 50 × U+FDFA (expanded by folding).

const FDFA = "\uFDFA".repeat(50);
/** 96 distinct one-letter words in 191 characters: within the list's 200, past the cap. */
const DISTINCT = [
  ..."abcdefghijklmnopqrstuvwxyz0123456789",
  ...Array.from({ length: 25 }, (_, i) => String.fromCodePoint(0x3b1 + i)).filter((c) => c !== "ς"),
  ...Array.from({ length: 32 }, (_, i) => String.fromCodePoint(0x430 + i)),
  ..."אבגד",
].join(" ");

async function accept(message: string): Promise<string> {
  const response = await appFetch(
    formPost("/f/contact", { name: "Ann", email: "ann@example.org", message, "cf-turnstile-response": standinToken() }),
  );
  expect(response.status).toBe(303);
  return (response.headers.get("location") ?? "").split("/").pop()!;
}

beforeEach(async () => {
  await standin.reset();
  await clearTables();
  await clearAdminTables();
});

describe("a search's words", () => {
  it("are 96 distinct ones in the example, and 50 x U+FDFA folds to over 150 words, 5 distinct", () => {
    expect(new Set(DISTINCT.split(" ")).size).toBe(96);
    expect(DISTINCT.length).toBeLessThanOrEqual(200);
    expect(wordsOf(FDFA).length).toBeGreaterThan(150);
    expect(new Set(wordsOf(FDFA)).size).toBe(5);
  });

  it("in the admin API: repeats and folding expansions search, past the cap a 400 problem", async () => {
    const blessed = await accept(`With thanks: ${FDFA}`);
    const plain = await accept("a a a, a note long enough to send.");
    const ids = async (q: string) => {
      const response = await api("GET", `/admin/api/submissions?q=${encodeURIComponent(q)}`);
      expect(response.status, await response.clone().text()).toBe(200);
      return ((await response.json()) as { items: Array<{ id: string }> }).items.map((item) => item.id);
    };
    expect(await ids(FDFA)).toEqual([blessed]);
    expect(await ids("a ".repeat(96))).toEqual([plain]);
    const refused = await api("GET", `/admin/api/submissions?q=${encodeURIComponent(DISTINCT)}`);
    expect(refused.status).toBe(400);
    expect(refused.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(await refused.json()).toMatchObject({ code: "search_too_many_words", words: 96 });
  });

  it("in the console's list: the same, the refusal a 400 page that says why", async () => {
    const blessed = await accept(`With thanks: ${FDFA}`);
    const appEnv = await adminEnv();
    const cookie = await sessionCookie("admin", appEnv);
    const page = (q: string) => appFetch(adminGet(`/admin/submissions?q=${encodeURIComponent(q)}`, cookie), appEnv);
    for (const q of [FDFA, "a ".repeat(96)]) {
      const response = await page(q);
      expect(response.status).toBe(200);
      if (q === FDFA) expect(await response.text()).toContain(blessed);
    }
    const refused = await page(DISTINCT);
    expect(refused.status).toBe(400);
    const html = await refused.text();
    expect(html).toContain(`A search takes at most ${MAX_SEARCH_WORDS} different words`);
    expect(html).toContain('role="search"');
  });

  it("bind as many parameters at the cap as for one word, every statement within D1's 100, and run in D1", async () => {
    const id = await accept("one two, a note long enough to send.");
    const words = Array.from({ length: MAX_SEARCH_WORDS }, (_, i) => `w${i}`);
    const filter = { form: "contact", status: "pending" as const, from: "2026-01-01", to: "2099-12-31" };
    const placeholders = async (q: string) => {
      const recorded = countingDb(env.DB);
      await listSubmissionPage(recorded.db, { ...filter, q }, null);
      return recorded
        .statements()
        .flat()
        .map((sql) => sql.split("?").length - 1);
    };
    const one = await placeholders("w0");
    const capped = await placeholders(words.join(" "));
    expect(capped).toEqual(one);
    expect(Math.max(...capped)).toBeLessThanOrEqual(100);
    // At the cap every word is still required: the submission holds two of them, not all.
    const found = await listSubmissionPage(env.DB, { q: ["one", "two", ...words.slice(2)].join(" ") }, null);
    expect(found.items).toEqual([]);
    expect((await listSubmissionPage(env.DB, { q: "TWO one two" }, null)).items.map((item) => item.submission.id)).toEqual([id]);
  });
});

import { describe, expect, it } from "vitest";
import { parseListFilters } from "~/lib/submissions/list-filters.server";
import { ftsQueryOf } from "~/lib/storage/submission-list.server";
import { MAX_SEARCH_WORDS, readSearchWords, wordsOf } from "~/lib/storage/search-text.server";
import { ERRORS } from "~/lib/http/errors";
import { plannedState } from "~/lib/storage/submission-state.server";

// The pure parts of the list (docs/decisions/060): a search's words as FTS5 reads them, the list's
// query string, and the state a new submission is stored in.

describe("a search as an FTS5 query", () => {
  it("folds each word and requires them all, whole", () => {
    expect(ftsQueryOf("ZOË  Ångström")).toBe('"zoë" "ångström"');
    expect(ftsQueryOf("STRASSE")).toBe(ftsQueryOf("straße"));
    expect(ftsQueryOf("ΟΔΟΣ 5")).toBe('"οδοσ" "5"');
  });

  it("keeps nothing FTS5 would read as syntax", () => {
    expect(ftsQueryOf('a"b OR c* NEAR(d)')).toBe('"a" "b" "or" "c" "near" "d"');
    expect(ftsQueryOf("%")).toBeNull();
    expect(ftsQueryOf("   ")).toBeNull();
    expect(wordsOf("person42@example.org")).toEqual(["person42", "example", "org"]);
  });
});

describe("the list's query string", () => {
  it("reads the filters and the cursor, dropping what is malformed", () => {
    const params = new URLSearchParams({
      form: "contact",
      status: "dead",
      from: "2026-01-01",
      to: "2026-13-01",
      q: "  hi  ",
      cursor: "abc",
    });
    expect(parseListFilters(params)).toEqual({
      filter: { form: "contact", status: "dead", from: "2026-01-01", q: "hi" },
      cursor: "abc",
      refused: null,
    });
    expect(parseListFilters(new URLSearchParams({ status: "stored", cursor: "x".repeat(401) }))).toEqual({
      filter: {},
      cursor: null,
      refused: null,
    });
  });

  it("refuses a search of more distinct words than one search takes, never cutting it", () => {
    const many = Array.from({ length: MAX_SEARCH_WORDS + 1 }, (_, i) => `w${i}`).join(" ");
    expect(parseListFilters(new URLSearchParams({ q: many })).refused).toBe("search_too_many_words");
    expect(parseListFilters(new URLSearchParams({ q: "a ".repeat(96) })).refused).toBeNull();
  });
});

describe("a search's words", () => {
  it("are folded and each counted once, in the order first seen", () => {
    expect(readSearchWords("Zoë ZOË zoë STRASSE straße")).toEqual({ ok: true, words: ["zoë", "strasse"] });
  });

  it("are at most MAX_SEARCH_WORDS distinct ones, counted after folding expands them", () => {
    const words = Array.from({ length: MAX_SEARCH_WORDS }, (_, i) => `w${i}`);
    expect(readSearchWords(words.join(" "))).toEqual({ ok: true, words });
    expect(readSearchWords([...words, "one more"].join(" "))).toEqual({
      ok: false,
      code: "search_too_many_words",
      count: MAX_SEARCH_WORDS + 2,
    });
    // One U+FDFA folds to four words; fifty of them to five distinct ones (the copies run together).
    expect(readSearchWords("\uFDFA")).toMatchObject({ ok: true, words: { length: 4 } });
    expect(readSearchWords("\uFDFA".repeat(50))).toMatchObject({ ok: true, words: { length: 5 } });
  });

  it("is named with its cap in the refusal's message", () => {
    expect(ERRORS.search_too_many_words.message).toContain(`at most ${MAX_SEARCH_WORDS} different words`);
  });
});

describe("the state a new submission is stored in", () => {
  it("is quarantined, pending while it has outbox rows, else stored", () => {
    expect(plannedState({ quarantined: true, deliveries: 2 })).toBe("quarantined");
    expect(plannedState({ quarantined: false, deliveries: 1 })).toBe("pending");
    expect(plannedState({ quarantined: false, deliveries: 0 })).toBe("stored");
  });
});

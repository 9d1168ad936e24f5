import { describe, expect, it } from "vitest";
import { parseListFilters } from "~/lib/admin/list-filters.server";
import { ftsQueryOf, wordsOf } from "~/lib/storage/submission-list.server";
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
    });
    expect(parseListFilters(new URLSearchParams({ status: "stored", cursor: "x".repeat(401) }))).toEqual({ filter: {}, cursor: null });
  });
});

describe("the state a new submission is stored in", () => {
  it("is quarantined, pending while it has outbox rows, else stored", () => {
    expect(plannedState({ quarantined: true, deliveries: 2 })).toBe("quarantined");
    expect(plannedState({ quarantined: false, deliveries: 1 })).toBe("pending");
    expect(plannedState({ quarantined: false, deliveries: 0 })).toBe("stored");
  });
});

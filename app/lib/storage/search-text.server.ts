import type { FieldValue } from "~/forms/schema";
import { filesOf } from "~/lib/storage/file-objects.server";

// The folded text the search reads (migration 0010): SQLite's lower() folds ASCII only, so the Worker folds both sides.

/** Text as the search compares it: NFKC, upper then lower case ("ß" meets "SS"), every sigma as σ. */
export function foldForSearch(text: string): string {
  return text.normalize("NFKC").toUpperCase().toLowerCase().normalize("NFC").replaceAll("ς", "σ");
}

/** The most distinct words one search takes: the cap keeps the search statements' terms bounded. */
export const MAX_SEARCH_WORDS = 20;

/** The folded words of a text as FTS5's unicode61 tokenizer splits them, in order, repeats kept. */
export function wordsOf(text: string): string[] {
  return foldForSearch(text).match(/[\p{L}\p{N}\p{M}\p{Co}]+/gu) ?? [];
}

export type SearchWords = { ok: true; words: string[] } | { ok: false; code: "search_too_many_words"; count: number };

/** A search's distinct folded words, first seen first; past MAX_SEARCH_WORDS a refusal (search_too_many_words). */
export function readSearchWords(q: string): SearchWords {
  const words = [...new Set(wordsOf(q))];
  return words.length > MAX_SEARCH_WORDS ? { ok: false, code: "search_too_many_words", count: words.length } : { ok: true, words };
}

/** A submission's search text: its values, one per line (a file field's: its files' names), folded. */
export function searchTextOf(fields: Readonly<Record<string, FieldValue>>): string {
  return foldForSearch(
    Object.values(fields)
      .filter((value) => value !== null && value !== "")
      .map((value) => (Array.isArray(value) ? filesOf(value).map((file) => file.name) : [String(value)]).join("\n"))
      .join("\n"),
  );
}

import type { FieldValue } from "~/forms/schema";
import { filesOf } from "~/lib/storage/file-objects.server";

// The folded text the console's search reads (migration 0010). SQLite's lower() folds ASCII only, so
// "ZOË" would never meet "Zoë" in SQL; the Worker folds both the stored values and the query the same
// way, and the search stays one instr() in the list's one round trip (app/lib/storage/console-queries.server.ts).

/**
 * Text as the search compares it: compatibility forms (full-width letters, ligatures) and case folded,
 * upper then lower so "ß" meets "SS", and every sigma as σ so a word's final ς matches inside a query.
 */
export function foldForSearch(text: string): string {
  return text.normalize("NFKC").toUpperCase().toLowerCase().normalize("NFC").replaceAll("ς", "σ");
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

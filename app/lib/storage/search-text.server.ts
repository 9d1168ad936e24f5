import type { FieldValue } from "~/forms/schema";

// The folded text the console's search reads (migration 0010). SQLite's lower() folds ASCII only, so
// "ZOË" would never meet "Zoë" in SQL; the Worker folds both the stored values and the query the same
// way, and the search stays one instr() in the list's one round trip (app/lib/admin/queries.server.ts).

/**
 * Text as the search compares it: compatibility forms (full-width letters, ligatures) and case folded,
 * upper then lower so "ß" meets "SS", and every sigma as σ so a word's final ς matches inside a query.
 */
export function foldForSearch(text: string): string {
  return text.normalize("NFKC").toUpperCase().toLowerCase().normalize("NFC").replaceAll("ς", "σ");
}

/** A submission's search text: its values, one per line, folded. */
export function searchTextOf(fields: Readonly<Record<string, FieldValue>>): string {
  return foldForSearch(
    Object.values(fields)
      .filter((value) => value !== null && value !== "")
      .map(String)
      .join("\n"),
  );
}

/**
 * Writes the search text of up to `limit` submissions stored before it existed, in one read and one
 * batch. Returns how many it folded (0 once every row has one). D1 errors throw.
 */
export async function foldMissingSearchTexts(db: D1Database, limit = 500): Promise<number> {
  const { results } = await db
    .prepare("SELECT id, fields FROM submissions WHERE search_text IS NULL LIMIT ?1")
    .bind(limit)
    .all<{ id: string; fields: string }>();
  if (results.length === 0) return 0;
  const update = db.prepare("UPDATE submissions SET search_text = ?2 WHERE id = ?1 AND search_text IS NULL");
  await db.batch(results.map((row) => update.bind(row.id, searchTextOf(parseFields(row.fields)))));
  return results.length;
}

function parseFields(text: string): Record<string, FieldValue> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, FieldValue>) : {};
  } catch {
    return {};
  }
}

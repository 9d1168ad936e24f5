import sql from "sql-template-tag";
import { z } from "zod";
import type { FieldValue } from "~/forms/schema";
import { parseRows, statement } from "~/lib/storage/sql.server";

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
  const { results } = await statement(db, sql`SELECT id, fields FROM submissions WHERE search_text IS NULL LIMIT ${limit}`).all();
  const rows = parseRows(UnfoldedRowSchema, results);
  if (rows.length === 0) return 0;
  await db.batch(
    rows.map((row) =>
      statement(db, sql`UPDATE submissions SET search_text = ${searchTextOf(row.fields)} WHERE id = ${row.id} AND search_text IS NULL`),
    ),
  );
  return rows.length;
}

// The stored fields are JSON written by Gatepost; anything else counts as no fields (nothing to find).
const FieldsSchema = z.string().transform((text): Record<string, FieldValue> => {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, FieldValue>) : {};
  } catch {
    return {};
  }
});
const UnfoldedRowSchema = z.object({ id: z.string(), fields: FieldsSchema });

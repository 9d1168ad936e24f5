import type { Sql } from "sql-template-tag";
import type { z } from "zod";

// The one shape of SQL in Gatepost: queries are written with sql-template-tag (`sql\`… ${value}\``,
// nested with `join`/`raw`/`empty`), which numbers nothing: every value becomes a plain `?` in
// order. Rows read back are parsed by their table's schema where they are read.

/** The D1 statement for `query`, its values bound in order. */
export function statement(db: D1Database, query: Sql): D1PreparedStatement {
  return db.prepare(query.sql).bind(...query.values);
}

/** Each row parsed by `schema`; a row that does not fit throws, since it can only be a bug or a bad migration. */
export function parseRows<T>(schema: z.ZodType<T>, rows: readonly unknown[]): T[] {
  return rows.map((row) => schema.parse(row));
}

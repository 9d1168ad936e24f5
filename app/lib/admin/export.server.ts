import { z } from "zod";
import type { FormDef } from "~/forms/schema";
import { IsoDateSchema, TokenSchema } from "~/lib/admin/input.server";
import { endOfDay, STATE_SQL } from "~/lib/admin/queries.server";
import { parseSubmissionRow } from "~/lib/storage/submissions.server";

// Exports for one form and date range. Column order is fixed (the metadata columns, then the form's
// fields in definition order, then any stored field the definition no longer has, sorted), so a
// spreadsheet built on yesterday's export still lines up today.
//
// The CSV writer is home-made on purpose: the libraries (csv-stringify, papaparse) escape a formula
// only at the start of a cell (csv-stringify's escape_formulas) or not at all, while a cell read
// with another locale's separator (`;` or tab) starts again after every separator. Neutralising
// every such start, and quoting every separator, is the point of this file; RFC 4180 quoting is the
// easy rest, and the Worker bundle carries no CSV dependency for it.

const META_COLUMNS = [
  "id",
  "received_at",
  "state",
  "quarantine_reason",
  "verify_hostname",
  "verify_action",
  "verify_challenge_ts",
] as const;
/**
 * Where a spreadsheet may start a cell: the start of the text, and after any separator a locale uses
 * (`,` `;` tab) or a line break. A cell starting with = + - @ (or their full-width forms, which some
 * spreadsheets fold), after any run of spaces, non-breaking or other Unicode spaces, or invisible
 * format characters (zero-width space and joiners, word joiner, BOM, soft hyphen: every default-
 * ignorable code point), or with tab or CR, is a formula to someone: spreadsheets skip those.
 */
const FORMULA_AT_CELL_START =
  // eslint-disable-next-line no-control-regex -- vertical tab and form feed are spaces a spreadsheet skips too
  /(?<=^|[,;\t\r\n])(?:[\p{Zs}\p{Cf}\p{Default_Ignorable_Code_Point}\u000b\u000c\u0085\u2028\u2029]*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]|[\t\r])/gu;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const NEEDS_QUOTES = /[",;\t\r\n]/;
export const EXPORT_LIMIT = 50_000;

export interface ExportRange {
  from?: string;
  to?: string;
}

/** A field the export form leaves empty ("from=&to=") is a field not given. */
const blankIsUnset = <T>(schema: z.ZodType<T>) => z.preprocess((value) => (value === "" ? undefined : value), schema);

/** /admin/export's query: a form id, an optional existing date range, csv (the default) or json. */
export const ExportParamsSchema = z.object({
  form: TokenSchema,
  from: blankIsUnset(IsoDateSchema.optional()),
  to: blankIsUnset(IsoDateSchema.optional()),
  format: blankIsUnset(z.enum(["csv", "json"]).default("csv")),
});
export type ExportParams = z.infer<typeof ExportParamsSchema>;

const StateRowSchema = z.object({ state: z.enum(["delivered", "pending", "dead", "quarantined", "stored"]) });

type Row = Record<string, string | number | boolean | null>;

/** The rows of one form in range, oldest first, flattened to the export's columns. D1 errors throw. */
export async function loadExportRows(db: D1Database, form: FormDef, range: ExportRange): Promise<{ columns: string[]; rows: Row[] }> {
  const binds: unknown[] = [form.id];
  let where = "s.form_id = ?1";
  if (range.from) where += ` AND s.received_at >= ?${binds.push(range.from)}`;
  if (range.to) where += ` AND s.received_at < ?${binds.push(endOfDay(range.to))}`;
  const { results } = await db
    .prepare(`SELECT s.*, ${STATE_SQL} AS state FROM submissions s WHERE ${where} ORDER BY s.received_at, s.id LIMIT ${EXPORT_LIMIT}`)
    .bind(...binds)
    .all<Record<string, unknown>>();
  const defined = form.fields.map((f) => f.name);
  const extra = new Set<string>();
  const rows = results.map((raw) => {
    const s = parseSubmissionRow(raw);
    for (const key of Object.keys(s.fields)) if (!defined.includes(key)) extra.add(key);
    const row: Row = {
      id: s.id,
      received_at: s.receivedAt,
      state: StateRowSchema.parse(raw).state,
      quarantine_reason: s.quarantineReason,
      verify_hostname: s.verification?.hostname ?? null,
      verify_action: s.verification?.action ?? null,
      verify_challenge_ts: s.verification?.challengeTs ?? null,
    };
    for (const [key, value] of Object.entries(s.fields)) row[`field:${key}`] = value as Row[string];
    return row;
  });
  const fieldColumns = [...defined, ...[...extra].sort()].map((name) => `field:${name}`);
  return { columns: [...META_COLUMNS, ...fieldColumns], rows };
}

/**
 * One CSV cell. Every place a spreadsheet could start a formula (see FORMULA_AT_CELL_START) gets an
 * apostrophe in front of it (OWASP's advice), and a cell holding a quote, a separator of any locale
 * or a line break is quoted (RFC 4180), so no locale splits it. Real numbers (number fields) stay as
 * they are: -3 is a value to a spreadsheet, not a formula. Lone surrogates become U+FFFD, so the file
 * is valid UTF-8.
 */
export function csvCell(value: unknown): string {
  let text = value === null || value === undefined ? "" : String(value).replace(LONE_SURROGATE, "\uFFFD");
  if (typeof value !== "number") text = text.replace(FORMULA_AT_CELL_START, "'$&");
  return NEEDS_QUOTES.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

/** CSV text: UTF-8 BOM (so Excel reads the encoding), header row, CRLF line ends. Never throws. */
export function toCsv(columns: readonly string[], rows: readonly Row[]): string {
  const lines = [columns.map(csvCell).join(","), ...rows.map((row) => columns.map((c) => csvCell(row[c])).join(","))];
  return `\uFEFF${lines.join("\r\n")}\r\n`;
}

/** JSON text: an array of objects with the same keys, in the same order, as the CSV. */
export function toJson(columns: readonly string[], rows: readonly Row[]): string {
  return JSON.stringify(
    rows.map((row) => Object.fromEntries(columns.map((c) => [c, row[c] ?? null]))),
    null,
    2,
  );
}

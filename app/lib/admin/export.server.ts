import { z } from "zod";
import type { FormDef, StoredFile } from "~/forms/schema";
import { filesOf } from "~/lib/storage/file-objects.server";
import { IsoDateSchema, TokenSchema } from "~/lib/admin/input.server";
import { listForExport } from "~/lib/storage/console-queries.server";

// Exports for one form and date range, columns in a fixed order (metadata, the form's fields, then
// stored fields the form no longer has, sorted) so yesterday's spreadsheet still lines up. A file
// field lists its files: objects in JSON, one line per file in a CSV cell.
// The CSV writer is home-made on purpose: csv-stringify and papaparse neutralise a formula only at the
// start of a cell, while a cell read with another locale's separator (`;`, tab) starts after each one.

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
 * A formula's start: = + - @ (or their full-width forms) at the text's start or after any locale's
 * separator or a line break, behind any spaces or invisible characters spreadsheets skip; or tab, CR.
 */
const FORMULA_AT_CELL_START =
  // eslint-disable-next-line no-control-regex -- vertical tab and form feed are spaces a spreadsheet skips too
  /(?<=^|[,;\t\r\n])(?:[\p{Zs}\p{Cf}\p{Default_Ignorable_Code_Point}\u000b\u000c\u0085\u2028\u2029]*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]|[\t\r])/gu;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const NEEDS_QUOTES = /[",;\t\r\n]/;

export interface ExportRange {
  from?: string;
  to?: string;
}

const blankIsUnset = <T>(schema: z.ZodType<T>) => z.preprocess((value) => (value === "" ? undefined : value), schema);

/** /admin/export's query: a form id, an optional existing date range, csv (the default) or json. */
export const ExportParamsSchema = z.object({
  form: TokenSchema,
  from: blankIsUnset(IsoDateSchema.optional()),
  to: blankIsUnset(IsoDateSchema.optional()),
  format: blankIsUnset(z.enum(["csv", "json"]).default("csv")),
});
export type ExportParams = z.infer<typeof ExportParamsSchema>;

type Row = Record<string, string | number | boolean | null | readonly StoredFile[]>;

/** The rows of one form in range, oldest first, flattened to the export's columns. D1 errors throw. */
export async function loadExportRows(db: D1Database, form: FormDef, range: ExportRange): Promise<{ columns: string[]; rows: Row[] }> {
  const listed = await listForExport(db, form.id, range);
  const defined = form.fields.map((f) => f.name);
  const extra = new Set<string>();
  const rows = listed.map(({ submission: s, state }) => {
    for (const key of Object.keys(s.fields)) if (!defined.includes(key)) extra.add(key);
    const row: Row = {
      id: s.id,
      received_at: s.receivedAt,
      state,
      quarantine_reason: s.quarantineReason,
      verify_hostname: s.verification?.hostname ?? null,
      verify_action: s.verification?.action ?? null,
      verify_challenge_ts: s.verification?.challengeTs ?? null,
    };
    for (const [key, value] of Object.entries(s.fields))
      row[`field:${key}`] = Array.isArray(value) ? filesOf(value) : (value as Row[string]);
    return row;
  });
  const fieldColumns = [...defined, ...[...extra].sort()].map((name) => `field:${name}`);
  return { columns: [...META_COLUMNS, ...fieldColumns], rows };
}

/**
 * One CSV cell: an apostrophe before every formula start (OWASP), quoted when it holds a quote, any
 * locale's separator or a line break (RFC 4180). Numbers stay as they are: -3 is a value, not a formula.
 */
export function csvCell(value: unknown): string {
  const plain = Array.isArray(value) ? filesOf(value).map(fileLine).join("\n") : value;
  let text = plain === null || plain === undefined ? "" : String(plain).replace(LONE_SURROGATE, "\uFFFD");
  if (typeof value !== "number") text = text.replace(FORMULA_AT_CELL_START, "'$&");
  return NEEDS_QUOTES.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

function fileLine(file: StoredFile): string {
  return `${file.name} (${file.type}, ${file.size} bytes, sha256 ${file.sha256}, id ${file.id})`;
}

/** CSV text: UTF-8 BOM (so Excel reads the encoding), header row, CRLF line ends. Never throws. */
export function toCsv(columns: readonly string[], rows: readonly Row[]): string {
  const lines = [columns.map(csvCell).join(","), ...rows.map((row) => columns.map((c) => csvCell(row[c])).join(","))];
  return `\uFEFF${lines.join("\r\n")}\r\n`;
}

/** JSON text with the CSV's keys in the CSV's order. Never throws. */
export function toJson(columns: readonly string[], rows: readonly Row[]): string {
  return JSON.stringify(
    rows.map((row) => Object.fromEntries(columns.map((c) => [c, row[c] ?? null]))),
    null,
    2,
  );
}

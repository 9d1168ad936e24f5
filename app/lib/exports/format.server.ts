import type { StoredFile } from "~/forms/schema";
import { filesOf } from "~/lib/storage/file-objects.server";
import type { ListedSubmission } from "~/lib/storage/submission-list.server";
import type { ExportRowData } from "~/lib/storage/submission-pages.server";

// Columns in a fixed order (metadata, the form's fields, then stored fields it no longer has, sorted), so
// yesterday's spreadsheet still lines up. The CSV writer is home-made: csv-stringify and papaparse neutralise a
// formula only at a cell's start, while a cell read with another locale's separator starts after each one.

const META_COLUMNS = [
  "id",
  "form_id",
  "received_at",
  "state",
  "test",
  "quarantine_reason",
  "verify_hostname",
  "verify_action",
  "verify_challenge_ts",
] as const;
/** A formula's start (= + - @, full-width too) at the start or after any locale's separator or line break, past skipped spaces. */
const FORMULA_AT_CELL_START =
  // eslint-disable-next-line no-control-regex -- vertical tab and form feed are spaces a spreadsheet skips too
  /(?<=^|[,;\t\r\n])(?:[\p{Zs}\p{Cf}\p{Default_Ignorable_Code_Point}\u000b\u000c\u0085\u2028\u2029]*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]|[\t\r])/gu;
/** The same, for text with no separator or line break, where only the text's start can begin a formula. */
const FORMULA_AT_START =
  // eslint-disable-next-line no-control-regex -- as above
  /^(?:[\p{Zs}\p{Cf}\p{Default_Ignorable_Code_Point}\u000b\u000c\u0085\u2028\u2029]*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]|[\t\r])/u;
const SEPARATOR = /[,;\t\r\n]/;
const SURROGATE = /[\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const NEEDS_QUOTES = /[",;\t\r\n]/;

export type Row = Record<string, string | number | boolean | null | readonly StoredFile[]>;

/** The export's columns: metadata, the form's fields as defined, then names only stored rows hold, sorted. */
export function exportColumns(defined: readonly string[], extra: readonly string[]): string[] {
  const fields = [...defined, ...extra.filter((name) => !defined.includes(name)).sort()];
  return [...META_COLUMNS, ...fields.map((name) => `field:${name}`)];
}

/** One submission flattened to the export's columns (a file field's value: its files). */
export function exportRow({ submission: s, state }: ListedSubmission): Row {
  const row: Row = {
    id: s.id,
    form_id: s.formId,
    received_at: s.receivedAt,
    state,
    test: s.test,
    quarantine_reason: s.quarantineReason,
    verify_hostname: s.verification?.hostname ?? null,
    verify_action: s.verification?.action ?? null,
    verify_challenge_ts: s.verification?.challengeTs ?? null,
  };
  for (const [key, value] of Object.entries(s.fields)) row[`field:${key}`] = Array.isArray(value) ? filesOf(value) : (value as Row[string]);
  return row;
}

/** The same row from the export's own lean read (readExportRows). */
export function exportRowOf(r: ExportRowData): Row {
  const row: Row = {
    id: r.id,
    form_id: r.formId,
    received_at: r.receivedAt,
    state: r.state,
    test: r.test,
    quarantine_reason: r.quarantineReason,
    verify_hostname: r.verifyHostname,
    verify_action: r.verifyAction,
    verify_challenge_ts: r.verifyChallengeTs,
  };
  for (const [key, value] of Object.entries(r.fields)) row[`field:${key}`] = Array.isArray(value) ? filesOf(value) : (value as Row[string]);
  return row;
}

/** One CSV cell: an apostrophe before every formula start (OWASP), quoted per RFC 4180; numbers stay as they are. */
export function csvCell(value: unknown): string {
  const plain = Array.isArray(value) ? filesOf(value).map(fileLine).join("\n") : value;
  let text = plain === null || plain === undefined ? "" : String(plain);
  if (SURROGATE.test(text)) text = text.replace(LONE_SURROGATE, "\uFFFD");
  if (typeof value !== "number") text = text.replace(SEPARATOR.test(text) ? FORMULA_AT_CELL_START : FORMULA_AT_START, "'$&");
  return NEEDS_QUOTES.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

function fileLine(file: StoredFile): string {
  return `${file.name} (${file.type}, ${file.size} bytes, sha256 ${file.sha256}, id ${file.id})`;
}

/** The CSV file's start: UTF-8 BOM (so Excel reads the encoding) and the header row. Never throws. */
export function csvHead(columns: readonly string[]): string {
  return `\uFEFF${columns.map(csvCell).join(",")}\r\n`;
}

/** CSV lines for `rows`, each ended by CRLF. Never throws. */
export function csvLines(columns: readonly string[], rows: readonly Row[]): string {
  return rows.map((row) => `${columns.map((c) => csvCell(row[c])).join(",")}\r\n`).join("");
}

/** CSV text: csvHead then csvLines. Never throws. */
export function toCsv(columns: readonly string[], rows: readonly Row[]): string {
  return csvHead(columns) + csvLines(columns, rows);
}

/** One row per line inside the JSON array, keys in the CSV's order; `first`: no comma before it. Never throws. */
export function jsonLines(columns: readonly string[], rows: readonly Row[], first: boolean): string {
  return rows
    .map((row, i) => `${first && i === 0 ? "\n" : ",\n"}${JSON.stringify(Object.fromEntries(columns.map((c) => [c, row[c] ?? null])))}`)
    .join("");
}

export const JSON_HEAD = "[";
export const JSON_TAIL = "\n]\n";

/** JSON text: an array of rows with the CSV's keys in the CSV's order. Never throws. */
export function toJson(columns: readonly string[], rows: readonly Row[]): string {
  return JSON_HEAD + jsonLines(columns, rows, true) + JSON_TAIL;
}

import type { FormDef } from "~/forms/schema";
import { nextDay, STATE_SQL } from "~/lib/admin/queries.server";
import { parseSubmissionRow } from "~/lib/storage/submissions.server";

// Exports for one form and date range. Column order is fixed (the metadata columns, then the form's
// fields in definition order, then any stored field the definition no longer has, sorted), so a
// spreadsheet built on yesterday's export still lines up today.

const META_COLUMNS = ["id", "received_at", "state", "quarantine_reason", "verify_hostname", "verify_action", "verify_challenge_ts"] as const;
const FORMULA_START = /^[=+\-@\t\r]/;
export const EXPORT_LIMIT = 50_000;

export interface ExportRange {
  from?: string;
  to?: string;
}

type Row = Record<string, string | number | boolean | null>;

/** The rows of one form in range, oldest first, flattened to the export's columns. D1 errors throw. */
export async function loadExportRows(db: D1Database, form: FormDef, range: ExportRange): Promise<{ columns: string[]; rows: Row[] }> {
  const binds: unknown[] = [form.id];
  let where = "s.form_id = ?1";
  if (range.from) where += ` AND s.received_at >= ?${binds.push(range.from)}`;
  if (range.to) where += ` AND s.received_at < ?${binds.push(nextDay(range.to))}`;
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
      state: String(raw.state),
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
 * One CSV cell. Text a spreadsheet would run as a formula (starting with = + - @, tab or CR) gets a
 * leading apostrophe (OWASP's advice), then RFC 4180 quoting when needed. Real numbers (number
 * fields) stay as they are: "-3" is a value to a spreadsheet, not a formula.
 */
export function csvCell(value: unknown): string {
  let text = value === null || value === undefined ? "" : String(value);
  if (typeof value !== "number" && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

/** CSV text: UTF-8 BOM (so Excel reads the encoding), header row, CRLF line ends. Never throws. */
export function toCsv(columns: readonly string[], rows: readonly Row[]): string {
  const lines = [columns.map(csvCell).join(","), ...rows.map((row) => columns.map((c) => csvCell(row[c])).join(","))];
  return `\uFEFF${lines.join("\r\n")}\r\n`;
}

/** JSON text: an array of objects with the same keys, in the same order, as the CSV. */
export function toJson(columns: readonly string[], rows: readonly Row[]): string {
  return JSON.stringify(rows.map((row) => Object.fromEntries(columns.map((c) => [c, row[c] ?? null]))), null, 2);
}

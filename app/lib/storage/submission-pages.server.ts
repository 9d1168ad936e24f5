import sql, { empty, join } from "sql-template-tag";
import { z } from "zod";
import { filterClauses, ListedRowSchema, STATE_SQL, type ListedSubmission } from "~/lib/storage/console-queries.server";
import type { FILTER_STATES } from "~/lib/storage/submission-states";
import { parseRows, statement } from "~/lib/storage/sql.server";

// Keyset (cursor) pages over (received_at, id) for the admin API's list (newest first) and the export
// job (oldest first), docs/decisions/085 and 086. A page starts strictly after the last row handed
// out, so rows stored meanwhile never shift a page: no gaps, no repeats, whatever arrives.

/** Where the previous page ended: the last row's received_at and id. */
export interface PageCursor {
  receivedAt: string;
  id: string;
}

export interface SubmissionPage {
  items: ListedSubmission[];
  /** Where the next page starts; null after the last. */
  next: PageCursor | null;
}

/** The API list's filter, by the console's names (the shape of issue 36's SubmissionFilter). */
export interface SubmissionFilter {
  form?: string;
  status?: (typeof FILTER_STATES)[number];
  /** YYYY-MM-DD, inclusive, UTC. */
  from?: string;
  to?: string;
  q?: string;
}

const CursorSchema = z.tuple([z.string().min(1).max(64), z.string().min(1).max(200)]);

/** The opaque text form of a cursor (base64url of JSON), as the API hands it out. */
export function encodeCursor(cursor: PageCursor): string {
  const bytes = new TextEncoder().encode(JSON.stringify([cursor.receivedAt, cursor.id]));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** The cursor `text` stands for, or null when it is not one this module made. Never throws. */
export function decodeCursor(text: string): PageCursor | null {
  if (!/^[\w-]{1,400}$/.test(text)) return null;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    const json = new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
    const parsed = CursorSchema.safeParse(JSON.parse(json));
    return parsed.success ? { receivedAt: parsed.data[0], id: parsed.data[1] } : null;
  } catch {
    return null;
  }
}

/**
 * One page of at most `limit` submissions matching `filter`, newest first, after `cursor` (null: the
 * first page; an opaque cursor this module made, see decodeCursor), with the next page's cursor or
 * null. Reads limit + 1 rows to know whether another page follows. D1 errors throw.
 */
export async function listSubmissionPage(
  db: D1Database,
  filter: SubmissionFilter,
  cursor: string | null,
  limit: number,
): Promise<{ items: ListedSubmission[]; next: string | null }> {
  const after = cursor === null ? null : decodeCursor(cursor);
  const clauses = filterClauses({ formId: filter.form, from: filter.from, to: filter.to, q: filter.q });
  if (after) clauses.push(sql`(s.received_at, s.id) < (${after.receivedAt}, ${after.id})`);
  const where = clauses.length > 0 ? sql`WHERE ${join(clauses, " AND ")}` : empty;
  const inner = sql`SELECT s.*, ${STATE_SQL} AS state FROM submissions s ${where}`;
  const outerWhere = filter.status ? sql`WHERE state = ${filter.status}` : empty;
  const query = sql`SELECT * FROM (${inner}) ${outerWhere} ORDER BY received_at DESC, id DESC LIMIT ${limit + 1}`;
  const page = pageOf(parseRows(ListedRowSchema, (await statement(db, query).all()).results), limit);
  return { items: page.items, next: page.next ? encodeCursor(page.next) : null };
}

/** The export's filter: one form (or every form) and an inclusive date range. */
export interface ExportFilter {
  formId: string | null;
  from?: string;
  to?: string;
}

/** One page of the export, oldest first, after `cursor`. D1 errors throw. */
export async function readExportPage(
  db: D1Database,
  filter: ExportFilter,
  cursor: PageCursor | null,
  limit: number,
): Promise<SubmissionPage> {
  const clauses = filterClauses({ formId: filter.formId ?? undefined, from: filter.from, to: filter.to });
  if (cursor) clauses.push(sql`(s.received_at, s.id) > (${cursor.receivedAt}, ${cursor.id})`);
  const where = clauses.length > 0 ? sql`WHERE ${join(clauses, " AND ")}` : empty;
  const query = sql`SELECT s.*, ${STATE_SQL} AS state FROM submissions s ${where} ORDER BY s.received_at, s.id LIMIT ${limit + 1}`;
  return pageOf(parseRows(ListedRowSchema, (await statement(db, query).all()).results), limit);
}

const KeyRowSchema = z.object({ key: z.string() });
const EdgeRowSchema = z.object({ received_at: z.string(), id: z.string(), n: z.number() });

/**
 * The field names used by a page of up to `limit` submissions of the export after `cursor`, and where
 * that page ended (null after the last). Two reads, no row leaves D1. D1 errors throw.
 */
export async function readExportKeys(
  db: D1Database,
  filter: ExportFilter,
  cursor: PageCursor | null,
  limit: number,
): Promise<{ keys: string[]; next: PageCursor | null }> {
  const clauses = filterClauses({ formId: filter.formId ?? undefined, from: filter.from, to: filter.to });
  if (cursor) clauses.push(sql`(s.received_at, s.id) > (${cursor.receivedAt}, ${cursor.id})`);
  const where = clauses.length > 0 ? sql`WHERE ${join(clauses, " AND ")}` : empty;
  const page = sql`SELECT s.fields, s.received_at, s.id FROM submissions s ${where} ORDER BY s.received_at, s.id LIMIT ${limit}`;
  const [keys, edge] = await db.batch([
    statement(db, sql`SELECT DISTINCT j.key AS key FROM (${page}) p, json_each(p.fields) j`),
    statement(
      db,
      sql`SELECT received_at, id, (SELECT COUNT(*) FROM (${page})) AS n FROM (${page}) ORDER BY received_at DESC, id DESC LIMIT 1`,
    ),
  ]);
  const last = parseRows(EdgeRowSchema, edge.results)[0];
  return {
    keys: parseRows(KeyRowSchema, keys.results).map((row) => row.key),
    // A full page may have a successor (at worst one empty page more); a short one is the last.
    next: last && last.n === limit ? { receivedAt: last.received_at, id: last.id } : null,
  };
}

function pageOf(rows: ListedSubmission[], limit: number): SubmissionPage {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items,
    next: rows.length > limit && last ? { receivedAt: last.submission.receivedAt, id: last.submission.id } : null,
  };
}

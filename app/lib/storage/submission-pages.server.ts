import sql, { empty, join, type Sql } from "sql-template-tag";
import { z } from "zod";
import { CURRENT_STATE, ListedRowSchema } from "~/lib/storage/console-queries.server";
import type { ListedSubmission } from "~/lib/storage/submission-list.server";
import { parseRows, statement } from "~/lib/storage/sql.server";
import { parseStoredFields, STORED_COLUMNS } from "~/lib/storage/submissions.server";
import { SUBMISSION_STATES, type SubmissionState } from "~/lib/storage/submission-states";

// Keyset pages over (received_at, id), oldest first, for the export job (ADR 085): a page starts strictly after
// the last row handed out, so rows stored meanwhile never shift one.

export interface PageCursor {
  receivedAt: string;
  id: string;
}

export interface SubmissionPage {
  items: ListedSubmission[];
  next: PageCursor | null;
}

export interface ExportFilter {
  formId: string | null;
  from?: string;
  to?: string;
}

function exportClauses(filter: ExportFilter, cursor: PageCursor | null): Sql {
  const clauses: Sql[] = [];
  if (filter.formId) clauses.push(sql`s.form_id = ${filter.formId}`);
  if (filter.from) clauses.push(sql`s.received_at >= ${filter.from}`);
  if (filter.to) clauses.push(sql`s.received_at < ${`${filter.to}T24`}`);
  if (cursor) clauses.push(sql`(s.received_at, s.id) > (${cursor.receivedAt}, ${cursor.id})`);
  return clauses.length > 0 ? sql`WHERE ${join(clauses, " AND ")}` : empty;
}

/** One page of the export, oldest first, after `cursor`. D1 errors throw. */
export async function readExportPage(
  db: D1Database,
  filter: ExportFilter,
  cursor: PageCursor | null,
  limit: number,
): Promise<SubmissionPage> {
  const query = sql`SELECT ${STORED_COLUMNS}, ${CURRENT_STATE} AS current_state FROM submissions s ${exportClauses(filter, cursor)}
    ORDER BY s.received_at, s.id LIMIT ${limit + 1}`;
  return pageOf(parseRows(ListedRowSchema, (await statement(db, query).all()).results), limit);
}

export interface ExportRowData {
  id: string;
  formId: string;
  receivedAt: string;
  state: SubmissionState;
  test: boolean;
  quarantineReason: string | null;
  verifyHostname: string | null;
  verifyAction: string | null;
  verifyChallengeTs: string | null;
  fields: Record<string, unknown>;
}

const STATES = new Set<string>(SUBMISSION_STATES);
const text = (value: unknown): string | null => (typeof value === "string" ? value : null);

/** A raw row of readExportRows' SELECT, checked column by column (a bad row throws: D1 returned what no migration made). */
function exportRowOf(raw: unknown[]): ExportRowData {
  const [id, formId, receivedAt, state, test, reason, hostname, action, challengeTs, fields] = raw;
  if (typeof id !== "string" || typeof formId !== "string" || typeof receivedAt !== "string" || typeof fields !== "string")
    throw new Error("an export row is malformed");
  if (typeof state !== "string" || !STATES.has(state)) throw new Error(`export row ${id}: unknown state`);
  const verified = typeof hostname === "string";
  return {
    id,
    formId,
    receivedAt,
    state: state as SubmissionState,
    test: test === 1,
    quarantineReason: text(reason),
    verifyHostname: verified ? hostname : null,
    verifyAction: verified ? (text(action) ?? "") : null,
    verifyChallengeTs: verified ? (text(challengeTs) ?? "") : null,
    fields: parseStoredFields(fields),
  };
}

/** A page of the export's rows as D1's raw arrays, only the columns it writes: objects cost most of a step's CPU (ADR 109). D1 errors throw. */
export async function readExportRows(
  db: D1Database,
  filter: ExportFilter,
  cursor: PageCursor | null,
  limit: number,
): Promise<{ rows: ExportRowData[]; next: PageCursor | null }> {
  const query = sql`SELECT s.id, s.form_id, s.received_at, ${CURRENT_STATE}, s.test, s.quarantine_reason, s.verify_hostname,
      s.verify_action, s.verify_challenge_ts, s.fields
    FROM submissions s ${exportClauses(filter, cursor)} ORDER BY s.received_at, s.id LIMIT ${limit + 1}`;
  const raw = await statement(db, query).raw();
  const rows = raw.slice(0, limit).map(exportRowOf);
  const last = rows[rows.length - 1];
  return { rows, next: raw.length > limit && last ? { receivedAt: last.receivedAt, id: last.id } : null };
}

const KeyRowSchema = z.object({ key: z.string() });
const EdgeRowSchema = z.object({ received_at: z.string(), id: z.string(), n: z.number() });

/** The field names used by a page of up to `limit` rows after `cursor`, where it ended, and its count; no row leaves D1. D1 errors throw. */
export async function readExportKeys(
  db: D1Database,
  filter: ExportFilter,
  cursor: PageCursor | null,
  limit: number,
): Promise<{ keys: string[]; count: number; next: PageCursor | null }> {
  const page = sql`SELECT s.fields, s.received_at, s.id FROM submissions s ${exportClauses(filter, cursor)} ORDER BY s.received_at, s.id LIMIT ${limit}`;
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
    count: last?.n ?? 0,
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

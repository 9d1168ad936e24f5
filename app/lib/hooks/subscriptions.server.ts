import sql from "sql-template-tag";
import { z } from "zod";
import { parseRows, statement } from "~/lib/storage/sql.server";
import type { Claim, Lease } from "~/lib/storage/deliveries.server";

// The hook_subscriptions table (migration 0062, ADR 123): made, listed and ended by the admin API and the
// console, read by the accept batch (one INSERT … SELECT of outbox rows) and by each attempt.

/** The most live subscriptions one form keeps: bounds the outbox rows of one accept batch. */
export const MAX_HOOKS_PER_FORM = 50;
/** The one event a subscription can ask for. */
export const HOOK_EVENTS = ["submission.accepted"] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

const ID_PATTERN = /^hook_[0-9a-f]{32}$/;

/** Whether an outbox row's destination names a subscription rather than a kind. */
export function isHookDestination(destination: string): boolean {
  return ID_PATTERN.test(destination);
}

/** A new subscription id: also the destination of its outbox rows. */
export function newHookId(): string {
  return `hook_${crypto.randomUUID().replaceAll("-", "")}`;
}

const HookRowSchema = z.object({
  id: z.string(),
  form_id: z.string(),
  event: z.enum(HOOK_EVENTS),
  url: z.string(),
  secret: z.string(),
  created_at: z.number(),
  created_by: z.string(),
  ended_at: z.number().nullable(),
  ended_by: z.string().nullable(),
});
export type HookRow = z.infer<typeof HookRowSchema>;

/** A subscription as the API and the console show it: never its secret. */
export interface HookView {
  id: string;
  formId: string;
  event: HookEvent;
  url: string;
  createdAt: string;
  createdBy: string;
}

export function viewOf(row: Omit<HookRow, "secret">): HookView {
  return {
    id: row.id,
    formId: row.form_id,
    event: row.event,
    url: row.url,
    createdAt: new Date(row.created_at).toISOString(),
    createdBy: row.created_by,
  };
}

/** The INSERT of a new subscription while its form has fewer than MAX_HOOKS_PER_FORM live; RETURNING id says whether it was made. */
export function insertHookStatement(
  db: D1Database,
  hook: { id: string; formId: string; event: HookEvent; url: string; sealedSecret: string; actor: string; nowMs: number },
): D1PreparedStatement {
  return statement(
    db,
    sql`INSERT INTO hook_subscriptions (id, form_id, event, url, secret, created_at, created_by)
      SELECT ${hook.id}, ${hook.formId}, ${hook.event}, ${hook.url}, ${hook.sealedSecret}, ${hook.nowMs}, ${hook.actor}
      WHERE (SELECT COUNT(*) FROM hook_subscriptions WHERE form_id = ${hook.formId} AND ended_at IS NULL) < ${MAX_HOOKS_PER_FORM}
      RETURNING id`,
  );
}

/** Ends a live subscription; RETURNING form_id says whether one was ended (and whose). */
export function endHookStatement(db: D1Database, id: string, endedBy: string, nowMs: number): D1PreparedStatement {
  return statement(
    db,
    sql`UPDATE hook_subscriptions SET ended_at = ${nowMs}, ended_by = ${endedBy} WHERE id = ${id} AND ended_at IS NULL RETURNING form_id`,
  );
}

const LIST_COLUMNS = sql`id, form_id, event, url, created_at, created_by, ended_at, ended_by`;

/** The live subscriptions, of one form when given, oldest first (at most 50 a form). D1 errors throw. */
export async function listHooks(db: D1Database, formId?: string | null): Promise<HookView[]> {
  const where = formId ? sql`form_id = ${formId} AND ended_at IS NULL` : sql`ended_at IS NULL`;
  const { results } = await statement(
    db,
    sql`SELECT ${LIST_COLUMNS} FROM hook_subscriptions WHERE ${where} ORDER BY form_id, created_at, id LIMIT 10000`,
  ).all();
  return parseRows(HookRowSchema.omit({ secret: true }), results).map(viewOf);
}

/** One subscription, ended or not, with its sealed secret; null when there is none. D1 errors throw. */
export async function findHook(db: D1Database, id: string): Promise<HookRow | null> {
  const { results } = await statement(db, sql`SELECT * FROM hook_subscriptions WHERE id = ${id}`).all();
  return parseRows(HookRowSchema, results)[0] ?? null;
}

/** The subscriptions `ids` names, ended or not, by id. D1 errors throw. */
export async function loadHooks(db: D1Database, ids: readonly string[]): Promise<Map<string, HookRow>> {
  const list = JSON.stringify([...new Set(ids)]);
  const { results } = await statement(db, sql`SELECT * FROM hook_subscriptions WHERE id IN (SELECT value FROM json_each(${list}))`).all();
  return new Map(parseRows(HookRowSchema, results).map((row) => [row.id, row]));
}

/**
 * The accept batch's outbox rows for subscriptions: one pending row per live subscription of the form
 * (at most MAX_HOOKS_PER_FORM), only beside the stored submission (ADR 033), leased like the others, each
 * with a fresh webhook-id made by SQLite. RETURNING gives the claims for the first attempt. Pure.
 */
export function hookOutboxStatement(
  db: D1Database,
  { formId, submissionId, nowMs, lease }: { formId: string; submissionId: string; nowMs: number; lease: Lease | null },
): D1PreparedStatement {
  return statement(
    db,
    sql`INSERT INTO deliveries (id, submission_id, form_id, destination, status, attempts, next_attempt_at, created_at,
        lease_owner, lease_until)
      SELECT 'msg_' || lower(hex(randomblob(16))), ${submissionId}, ${formId}, h.id, 'pending', 0, ${nowMs},
        ${new Date(nowMs).toISOString()}, ${lease?.owner ?? null}, ${lease?.untilMs ?? null}
      FROM hook_subscriptions h
      WHERE h.form_id = ${formId} AND h.ended_at IS NULL AND EXISTS (SELECT 1 FROM submissions WHERE id = ${submissionId})
      ORDER BY h.created_at, h.id LIMIT ${MAX_HOOKS_PER_FORM}
      RETURNING id, submission_id, form_id, destination, attempts`,
  );
}

/**
 * A 410 from the receiver ends its subscription (REST hooks' unsubscribe), with an audit row written
 * only when this ended it: the statements ride in the attempt's settling batch. The actor is Gatepost
 * itself, acting with an admin's rights (audit_log's role is admin or viewer). Pure.
 */
export function endedByReceiverStatements(db: D1Database, claim: Claim, nowMs: number): D1PreparedStatement[] {
  const at = new Date(nowMs).toISOString();
  const detail = JSON.stringify({ formId: claim.formId, delivery: claim.id, reason: "HTTP 410 from the subscribed URL" });
  return [
    endHookStatement(db, claim.destination, "receiver", nowMs),
    statement(
      db,
      sql`INSERT INTO audit_log (at, actor, role, action, target, detail, ip)
        SELECT ${at}, 'gatepost', 'admin', 'hook.ended', ${claim.destination}, ${detail}, NULL WHERE changes() > 0`,
    ),
  ];
}

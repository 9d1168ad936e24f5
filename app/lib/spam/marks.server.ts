import sql from "sql-template-tag";
import { z } from "zod";
import type { FieldValue } from "~/forms/schema";
import { auditStatement } from "~/lib/storage/audit-log.server";
import { parseRows, runBatch, statement } from "~/lib/storage/sql.server";
import { spamFeaturesOf } from "~/lib/spam/features.server";
import { forgetSpamModel, modelRowStatement } from "~/lib/spam/model-store.server";

// The owner's marks (docs/forms.md#spam) train the model, a changed mark first taking back the old one. Spam
// stops waiting deliveries and quarantines what was not delivered yet. Up to MAX_MARKS are one D1 batch guarded
// by the model's version, so two marks at once never count twice.

export type MarkLabel = "spam" | "ham";
export const MAX_MARKS = 100;

export type MarkOutcome =
  | {
      ok: true;
      /** The submissions whose mark changed (a repeat of the same mark changes nothing). */
      changed: Array<{ id: string; akismetParams: string | null }>;
      stopped: number;
      missing: string[];
    }
  | { ok: false; code: "spam_mark_conflict" };

export interface MarkInput {
  ids: readonly string[];
  label: MarkLabel;
  nowMs: number;
  /** Who marked, for the audit row; null for a mark implied by another audited action (a release). */
  actor: { user: { id: string; role: string }; request: Request; action?: string } | null;
}

const MarkRowSchema = z.object({
  id: z.string(),
  fields: z.string(),
  label: z.enum(["spam", "ham"]).nullable(),
  tokens: z.string().nullable(),
  akismet_params: z.string().nullable(),
});
const TokensSchema = z.array(z.string());

/** Marks the submissions `ids` (at most MAX_MARKS) as spam or ham. D1 errors throw. */
export async function markSubmissions(db: D1Database, input: MarkInput): Promise<MarkOutcome> {
  const ids = [...new Set(input.ids)].slice(0, MAX_MARKS);
  const read = await runBatch(db, {
    model: modelRowStatement(db),
    rows: statement(
      db,
      sql`SELECT s.id, s.fields, m.label, m.tokens, c.akismet_params FROM submissions s
        LEFT JOIN spam_marks m ON m.submission_id = s.id LEFT JOIN spam_checks c ON c.submission_id = s.id
        WHERE s.id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`,
    ),
  });
  const version = z.object({ version: z.number() }).parse(read.model.results[0]).version;
  const rows = parseRows(MarkRowSchema, read.rows.results);
  const missing = ids.filter((id) => !rows.some((row) => row.id === id));
  const changing = rows.filter((row) => row.label !== input.label);
  const deltas = new Map<string, [number, number]>();
  const add = (tokens: readonly string[], label: MarkLabel, by: number) => {
    for (const token of tokens) {
      const delta = deltas.get(token) ?? [0, 0];
      delta[label === "spam" ? 0 : 1] += by;
      deltas.set(token, delta);
    }
  };
  const marks = changing.map((row) => {
    if (row.label && row.tokens) add(TokensSchema.parse(JSON.parse(row.tokens)), row.label, -1);
    const tokens = spamFeaturesOf(parseFields(row.fields));
    add(tokens, input.label, 1);
    return { id: row.id, tokens: JSON.stringify(tokens) };
  });
  const docs = { spam: 0, ham: 0 };
  for (const row of changing) {
    if (row.label) docs[row.label] -= 1;
    docs[input.label] += 1;
  }
  const audit = input.actor
    ? auditStatement(db, {
        user: input.actor.user,
        request: input.actor.request,
        action: input.actor.action ?? "submission.mark",
        target: ids.length === 1 ? ids[0] : null,
        detail: { as: input.label, ...(ids.length > 1 ? { ids } : {}), changed: changing.length },
        nowMs: input.nowMs,
      })
    : null;
  if (changing.length === 0) {
    if (audit) await audit.run();
    return { ok: true, changed: [], stopped: 0, missing };
  }
  const guard = sql`(SELECT version FROM spam_model WHERE id = 1) = ${version}`;
  const spamIds = JSON.stringify(input.label === "spam" ? changing.map((row) => row.id) : []);
  const touched = JSON.stringify([...deltas.keys()]);
  const done = await runBatch(db, {
    tokens: statement(
      db,
      sql`INSERT INTO spam_tokens (token, spam, ham)
        SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(${JSON.stringify([...deltas].map(([t, [s, h]]) => [t, s, h]))})
        WHERE ${guard}
        ON CONFLICT (token) DO UPDATE SET spam = spam + excluded.spam, ham = ham + excluded.ham`,
    ),
    prune: statement(
      db,
      sql`DELETE FROM spam_tokens WHERE spam <= 0 AND ham <= 0 AND token IN (SELECT value FROM json_each(${touched})) AND ${guard}`,
    ),
    marks: statement(
      db,
      sql`INSERT INTO spam_marks (submission_id, label, tokens, marked_at)
        SELECT value ->> 'id', ${input.label}, value ->> 'tokens', ${input.nowMs} FROM json_each(${JSON.stringify(marks)}) WHERE ${guard}
        ON CONFLICT (submission_id) DO UPDATE SET label = excluded.label, tokens = excluded.tokens, marked_at = excluded.marked_at`,
    ),
    stop: statement(
      db,
      sql`DELETE FROM deliveries WHERE submission_id IN (SELECT value FROM json_each(${spamIds})) AND status = 'pending'
        AND (lease_until IS NULL OR lease_until <= ${input.nowMs}) AND ${guard} RETURNING id`,
    ),
    quarantine: statement(
      db,
      sql`UPDATE submissions SET status = 'quarantined', quarantine_reason = coalesce(quarantine_reason, 'spam_marked')
        WHERE id IN (SELECT value FROM json_each(${spamIds})) AND status = 'accepted' AND ${guard}
          AND NOT EXISTS (SELECT 1 FROM deliveries WHERE submission_id = submissions.id)`,
    ),
    model: statement(
      db,
      sql`UPDATE spam_model SET version = version + 1, spam_docs = spam_docs + ${docs.spam}, ham_docs = ham_docs + ${docs.ham}
        WHERE id = 1 AND version = ${version} RETURNING version`,
    ),
    audit,
  });
  forgetSpamModel();
  if (done.model.results.length === 0) return { ok: false, code: "spam_mark_conflict" };
  return {
    ok: true,
    changed: changing.map((row) => ({ id: row.id, akismetParams: row.akismet_params })),
    stopped: done.stop.results.length,
    missing,
  };
}

function parseFields(text: string): Record<string, FieldValue> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, FieldValue>) : {};
  } catch {
    return {};
  }
}

/** The label of a mark's JSON body ({"as": "spam" | "ham"}), or null. */
export function readMarkLabel(body: unknown): MarkLabel | null {
  const as = typeof body === "object" && body !== null ? (body as { as?: unknown }).as : undefined;
  return as === "spam" || as === "ham" ? as : null;
}

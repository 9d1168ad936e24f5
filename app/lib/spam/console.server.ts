import sql from "sql-template-tag";
import { z } from "zod";
import { readMessageUpTo } from "~/lib/http/read-stream.server";
import { parseRows, runBatch, statement } from "~/lib/storage/sql.server";
import { countOf } from "~/lib/text/count";
import { MAX_MARKS, type MarkLabel, type MarkOutcome } from "~/lib/spam/marks.server";
import { MIN_MARKS } from "~/lib/spam/model";
import { modelRowStatement } from "~/lib/spam/model-store.server";
import { markAsOwner, type MarkContext } from "~/lib/spam/owner-marks.server";

// What the console shows of spam, and the marks its buttons send.

export interface SpamPanel {
  check: { rule: string | null; score: number | null; words: string[]; akismet: string | null } | null;
  mark: MarkLabel | null;
  model: { spamDocs: number; hamDocs: number; minMarks: number };
}

const CheckRowSchema = z.object({
  rule: z.string().nullable(),
  score: z.number().nullable(),
  words: z.string().nullable(),
  akismet: z.string().nullable(),
});
const ModelSchema = z.object({ spam_docs: z.number(), ham_docs: z.number() });

/** A submission's spam checks, its mark and the model's mark counts, in one round trip. D1 errors throw. */
export async function loadSpamPanel(db: D1Database, id: string): Promise<SpamPanel> {
  const done = await runBatch(db, {
    check: statement(db, sql`SELECT rule, score, words, akismet FROM spam_checks WHERE submission_id = ${id}`),
    mark: statement(db, sql`SELECT label FROM spam_marks WHERE submission_id = ${id}`),
    model: modelRowStatement(db),
  });
  const [check] = parseRows(CheckRowSchema, done.check.results);
  const [mark] = parseRows(z.object({ label: z.enum(["spam", "ham"]) }), done.mark.results);
  const [model] = parseRows(ModelSchema, done.model.results);
  return {
    check: check ? { ...check, words: check.words ? (JSON.parse(check.words) as string[]) : [] } : null,
    mark: mark?.label ?? null,
    model: { spamDocs: model?.spam_docs ?? 0, hamDocs: model?.ham_docs ?? 0, minMarks: MIN_MARKS },
  };
}

/** The marks a console form sends: `intent` mark-spam or mark-ham, and one `id` per submission. Null when malformed. */
export async function readMarkForm(request: Request): Promise<{ label: MarkLabel; ids: string[] } | null> {
  const read = await readMessageUpTo(request, 16 * 1024);
  if (!read || read.overflow) return null;
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(new TextDecoder("utf-8", { fatal: true }).decode(read.bytes));
  } catch {
    return null;
  }
  const label = params.get("intent") === "mark-spam" ? "spam" : params.get("intent") === "mark-ham" ? "ham" : null;
  const ids = params.getAll("id").filter((id) => /^[A-Za-z0-9_-]{1,200}$/.test(id));
  if (!label || ids.length === 0 || ids.length > MAX_MARKS) return null;
  return { label, ids };
}

/** The list's marks: reads the ticked ids, marks them, says what it did; null for a malformed form. D1 errors throw. */
export async function markTicked(context: MarkContext): Promise<{ ok: boolean; message: string } | null> {
  const marks = await readMarkForm(context.request);
  if (!marks) return null;
  return describeMarks(await markAsOwner(context, marks.ids, marks.label), marks.label, marks.ids.length);
}

/** A mark's outcome in the console's words. */
export function describeMarks(outcome: MarkOutcome, label: MarkLabel, asked: number): { ok: boolean; message: string } {
  if (!outcome.ok) return { ok: false, message: "Someone else marked submissions at the same moment. Mark them again." };
  const changed = outcome.changed.length;
  const stopped = outcome.stopped > 0 ? ` ${countOf(outcome.stopped, "waiting delivery was", "waiting deliveries were")} stopped.` : "";
  const same = asked - changed - outcome.missing.length;
  const already = same > 0 ? ` ${countOf(same, "was", "were")} already marked so.` : "";
  return { ok: true, message: `Marked ${countOf(changed, "submission", "submissions")} as ${label}.${already}${stopped}` };
}

const ReasonRowSchema = z.object({ day: z.string(), reason: z.string(), n: z.number() });

/** Quarantined submissions per UTC day and reason over the last `days` days, newest first. D1 errors throw. */
export async function quarantinedByReason(db: D1Database, nowMs: number, days = 14): Promise<z.infer<typeof ReasonRowSchema>[]> {
  const since = new Date(nowMs - days * 86_400_000).toISOString().slice(0, 10);
  const { results } = await statement(
    db,
    sql`SELECT substr(received_at, 1, 10) AS day, coalesce(quarantine_reason, 'unknown') AS reason, COUNT(*) AS n
      FROM submissions WHERE status = 'quarantined' AND test = 0 AND received_at >= ${since}
      GROUP BY day, reason ORDER BY day DESC, reason`,
  ).all();
  return parseRows(ReasonRowSchema, results);
}

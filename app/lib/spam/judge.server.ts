import sql from "sql-template-tag";
import type { FieldValue, FormDef } from "~/forms/schema";
import type { InvocationBudget } from "~/lib/platform/budget.server";
import { statement } from "~/lib/storage/sql.server";
import { akismetParamsOf, checkWithAkismet, type AkismetSettings } from "~/lib/spam/akismet.server";
import { DEFAULT_SPAM_THRESHOLD } from "~/lib/spam/definition";
import { spamFeaturesOf } from "~/lib/spam/features.server";
import { scoreFeatures } from "~/lib/spam/model";
import { currentSpamModel, modelVersionStatement, refreshSpamModelIfMoved } from "~/lib/spam/model-store.server";
import { matchSpamRules } from "~/lib/spam/rules.server";

// The content checks of a verified post before its outbox rows are written (ADR 125): rules, the learning filter,
// then Akismet. A rule may refuse; the rest only quarantines. Nothing may lose a post: failures count as silent.

/** Why a post waits in quarantine; every spam reason starts "spam_" (its files are kept: file-objects.server.ts). */
export type SpamReason = "spam_rule" | "spam_filter" | "spam_akismet" | "spam_marked";

export interface SpamCheck {
  rule: string | null;
  score: number | null;
  words: string[];
  akismet: "spam" | "ham" | "not_checked" | null;
  akismetParams: string | null;
}

export type SpamJudgement =
  { kind: "refuse"; code: "spam_refused"; rule: string } | { kind: "keep"; reason: SpamReason | null; check: SpamCheck | null };

export interface JudgeInput {
  db: D1Database;
  form: FormDef;
  values: Readonly<Record<string, FieldValue>>;
  request: Request;
  ip: string | null;
  lang: string;
  nowMs: number;
  akismet: AkismetSettings | null;
  budget: InvocationBudget;
  fetch?: typeof fetch;
}

/** Judges a verified post. Never throws for D1 or Akismet: they fail open, and the post is kept. */
export async function judgeSpam(input: JudgeInput): Promise<SpamJudgement> {
  const { form, values } = input;
  const match = matchSpamRules(form, values);
  if (match?.action === "refuse") return { kind: "refuse", code: "spam_refused", rule: match.kind };
  const filterOn = form.spam?.filter !== false;
  const check: SpamCheck = { rule: match?.kind ?? null, score: null, words: [], akismet: null, akismetParams: null };
  let reason: SpamReason | null = match ? "spam_rule" : null;
  if (filterOn) {
    const score = await scoreSafely(input);
    if (score && !score.silent) {
      check.score = score.score;
      check.words = score.words;
      if (!reason && score.score >= (form.spam?.threshold ?? DEFAULT_SPAM_THRESHOLD)) reason = "spam_filter";
    }
  }
  // Akismet is asked only about a post nothing here has already held back, within the plan's fetches.
  if (filterOn && !reason && input.akismet && input.budget.trySpend({ subrequests: 1 })) {
    const params = akismetParamsOf({ ...senderOf(form, values), ip: input.ip, request: input.request, lang: input.lang });
    const verdict = await checkWithAkismet({ settings: input.akismet, params, fetch: input.fetch });
    check.akismet = verdict.checked ? (verdict.spam ? "spam" : "ham") : "not_checked";
    check.akismetParams = JSON.stringify(params);
    if (verdict.checked && verdict.spam) reason = "spam_akismet";
  }
  const worthKeeping = check.rule !== null || check.score !== null || check.akismet !== null;
  return { kind: "keep", reason, check: worthKeeping ? check : null };
}

async function scoreSafely(input: JudgeInput) {
  try {
    const model = await currentSpamModel(input.db);
    return scoreFeatures(model, spamFeaturesOf(input.values));
  } catch (error) {
    console.warn("the spam model could not be read; this post is not scored:", error);
    return null;
  }
}

/** The sender's name (the first text field), address (the first e-mail field) and the text typed. */
function senderOf(form: FormDef, values: Readonly<Record<string, FieldValue>>) {
  const first = (type: string) => {
    const field = form.fields.find((f) => f.type === type);
    const value = field ? values[field.name] : null;
    return typeof value === "string" && value.trim() ? value.trim() : null;
  };
  const content = form.fields
    .filter((f) => f.type === "textarea" || f.type === "text")
    .map((f) => values[f.name])
    .filter((v): v is string => typeof v === "string" && v !== "")
    .join("\n\n");
  return { author: first("text"), email: first("email"), content };
}

/** What the accept batch carries for the spam checks: the check's row and the model's version. */
export function spamBatchParts(db: D1Database, submissionId: string, judgement: SpamJudgement | null) {
  const keep = judgement?.kind === "keep" ? judgement : null;
  const version = keep ? modelVersionStatement(db) : null;
  return {
    statements: [...(keep?.check ? [spamCheckStatement(db, submissionId, keep.check)] : []), ...(version ? [version] : [])],
    afterStore(results: readonly { results: readonly unknown[] }[], waitUntil: (p: Promise<unknown>) => void) {
      const rows = results.at(-1)?.results;
      if (version && rows) refreshSpamModelIfMoved(db, rows, waitUntil);
    },
  };
}

function spamCheckStatement(db: D1Database, submissionId: string, check: SpamCheck): D1PreparedStatement {
  return statement(
    db,
    sql`INSERT INTO spam_checks (submission_id, rule, score, words, akismet, akismet_params)
      SELECT ${submissionId}, ${check.rule}, ${check.score}, ${JSON.stringify(check.words)}, ${check.akismet}, ${check.akismetParams}
      WHERE EXISTS (SELECT 1 FROM submissions WHERE id = ${submissionId})`,
  );
}

import type { Settings } from "~/lib/settings/settings.server";
import type { FormDef } from "~/forms/schema";
import { loadFormCatalog, type FormCatalog } from "~/lib/forms/catalog.server";
import { catalogSettings } from "~/lib/forms/live.server";
import { DELIVERY_TIMEOUT_MS, type AttemptRecord } from "~/lib/sending/attempt.server";
import { attemptKind } from "~/lib/delivery/dispatch.server";
import { settleStatements, type SettleOutcome, type Settled } from "~/lib/delivery/settle.server";
import { tellOwnerOfPause } from "~/lib/delivery/pause.server";
import type { Mailer } from "~/lib/sending/mailer.server";
import type { Cost, InvocationBudget } from "~/lib/platform/budget.server";
import { isBudgetRefusal } from "~/lib/storage/d1-failure.server";
import { healthOfResult } from "~/lib/storage/destination-health.server";
import type { Claim } from "~/lib/storage/deliveries.server";
import { loadSubmissions, type StoredSubmission } from "~/lib/storage/submissions.server";
import { isHookDestination, loadHooks, type HookRow } from "~/lib/hooks/subscriptions.server";

// One batch of claimed deliveries, sent side by side and settled in one D1 batch, for the cron's drain and the
// queue's consumer alike (ADR 070), so both keep to the invocation's budget the same way.

/**
 * What claiming one batch spends: the claim and its submissions' read. A batch holding subscriptions' rows
 * (ADR 123) reads them in one query more, counted when it does (their claims use no confirmation slot).
 */
export const BATCH_COST = { d1Queries: 2 } as const satisfies Cost;
export const CATALOG_COST = { d1Queries: 2 } as const satisfies Cost;
/** The most one delivery spends: its fetch (or e-mail), a confirmation's slot, and the settling batch (ADR 071). */
export const DELIVERY_COST = { subrequests: 1, d1Queries: 4 } as const satisfies Cost;

export const deliveriesCost = (n: number): Cost => ({ d1Queries: DELIVERY_COST.d1Queries * n, subrequests: DELIVERY_COST.subrequests * n });

export interface DeliverOptions {
  now?: () => number;
  fetch?: typeof fetch;
  timeoutMs?: number;
  random?: () => number;
  mailer?: Mailer | null;
  budget?: InvocationBudget;
  pauseAfter?: number;
}

/** How one claim went: null when it was not settled (the platform refused a call on its way). */
export type ClaimResult = { outcome: SettleOutcome; nextAttemptMs: number | null; paused: boolean } | null;

export interface CatalogHolder {
  catalog: FormCatalog | null;
}

/** Sends and settles `claims`, in order; `refused`: the platform refused a call for the spent budget. Throws only if D1 fails. */
export async function deliverClaims(
  db: D1Database,
  settings: Settings,
  claims: readonly Claim[],
  owner: string,
  options: DeliverOptions,
  holder: CatalogHolder = { catalog: null },
): Promise<{ results: ClaimResult[]; refused: boolean }> {
  const { timeoutMs = DELIVERY_TIMEOUT_MS, now = Date.now } = options;
  let refused = false;
  const spared = (error: unknown): null => {
    if (!isBudgetRefusal(error)) throw error;
    refused = true;
    return null;
  };
  // The batch's subscriptions are read beside its submissions, once, not per attempt (BATCH_COST).
  const hookIds = claims.flatMap((claim) => (isHookDestination(claim.destination) ? [claim.destination] : []));
  if (hookIds.length > 0) options.budget?.spend({ d1Queries: 1 });
  const read = await Promise.all([
    loadSubmissions(
      db,
      claims.map((claim) => claim.submissionId),
    ),
    hookIds.length > 0 ? loadHooks(db, hookIds) : new Map<string, HookRow>(),
  ]).catch(spared);
  if (!read) return { results: claims.map(() => null), refused };
  const [submissions, hooks] = read;
  holder.catalog ??= await loadFormCatalog({ db, encryptionKeys: settings.encryptionKeys, nowMs: now() });
  const catalog = holder.catalog;
  const layered = catalogSettings(settings, catalog);
  const records = await Promise.all(
    claims.map((claim) =>
      attemptDelivery(
        db,
        layered,
        claim,
        submissions.get(claim.submissionId),
        catalog.forms.get(claim.formId)?.form,
        timeoutMs,
        options,
        hooks,
      ).catch(spared),
    ),
  );
  if (records.some((record) => record?.error === "budget")) refused = true;
  const settled = claims.map((claim, i) => {
    const record = records[i];
    return record ? settleStatements(db, claim, owner, record, now(), options.random, options.pauseAfter) : null;
  });
  const statements = settled.flatMap((one) => one?.statements ?? []);
  // A refused batch leaves every lease to lapse: those rows are sent again later (same webhook-ids).
  const rows = statements.length > 0 ? await db.batch(statements).catch(spared) : [];
  if (!rows) return { results: claims.map(() => null), refused };
  const results: ClaimResult[] = [];
  let offset = 0;
  for (const [i, one] of settled.entries()) {
    if (!one) {
      results.push(null);
      continue;
    }
    const own = rows.slice(offset, offset + one.statements.length);
    offset += one.statements.length;
    const form = catalog.forms.get(claims[i].formId)?.form;
    const health = one.healthAt === null ? null : healthOfResult(own[one.healthAt]);
    await tellOwnerIfPaused(db, layered, form, one, own, { mailer: options.mailer ?? null, nowMs: now(), budget: options.budget });
    results.push({ outcome: one.outcome, nextAttemptMs: one.nextAttemptMs, paused: health?.pausedAt != null });
  }
  return { results, refused };
}

/** After a settle that counted a failure: tells the owner if that paused the destination. Never throws. */
export function tellOwnerIfPaused(
  db: D1Database,
  settings: Settings,
  form: FormDef | undefined,
  settled: Settled,
  results: readonly D1Result[],
  options: Parameters<typeof tellOwnerOfPause>[4],
): Promise<boolean> {
  if (settled.healthAt === null) return Promise.resolve(false);
  return tellOwnerOfPause(db, settings, form, healthOfResult(results[settled.healthAt]), options);
}

/** One attempt at one claim, or a `config` record when its submission or form is gone. */
export async function attemptDelivery(
  db: D1Database,
  settings: Settings,
  claim: Claim,
  submission: StoredSubmission | undefined,
  form: FormDef | undefined,
  timeoutMs: number,
  options: Pick<DeliverOptions, "fetch" | "mailer" | "now">,
  /** The subscriptions read for a batch; without it, a subscription's attempt reads its own. */
  hooks?: ReadonlyMap<string, HookRow>,
): Promise<AttemptRecord> {
  if (!submission || !form) {
    const detail = !submission ? "the submission no longer exists" : `form ${claim.formId} is not defined`;
    console.error(`delivery ${claim.id} cannot be sent: ${detail}`);
    return { delivered: false, httpStatus: null, error: "config", detail, latencyMs: 0, excerpt: null };
  }
  const { fetch, mailer = null, now = Date.now } = options;
  return attemptKind({ db, settings, form, claim, submission, timeoutMs, fetch, mailer, nowMs: now() }, hooks);
}

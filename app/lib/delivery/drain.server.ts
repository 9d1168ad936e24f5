import type { Settings } from "~/lib/settings/settings.server";
import type { FormDef } from "~/forms/schema";
import { loadFormCatalog, type FormCatalog } from "~/lib/forms/catalog.server";
import { catalogSettings } from "~/lib/forms/live.server";
import { DELIVERY_TIMEOUT_MS, type AttemptRecord } from "~/lib/delivery/attempt.server";
import { attemptKind } from "~/lib/delivery/dispatch.server";
import { PROBE_INTERVAL_MS, settleStatements, type SettleOutcome, type Settled } from "~/lib/delivery/settle.server";
import { tellOwnerOfPause } from "~/lib/delivery/pause.server";
import { healthOfResult } from "~/lib/storage/destination-health.server";
import { budgetFor, isBudgetRefusal, type Cost, type InvocationBudget } from "~/lib/platform/budget.server";
import type { Mailer } from "~/lib/delivery/mailer.server";
import { claimDue, claimProbes, type Claim } from "~/lib/storage/deliveries.server";
import { loadSubmissions, type StoredSubmission } from "~/lib/storage/submissions.server";

// Drives the outbox: claim due deliveries under a lease, send each once, log and settle. A drainer that
// dies lets its lease expire and the next claims the row again (at-least-once, same webhook-id).

/** Longer than the 10 s timeout plus logging, so a live drainer never loses its claim mid-attempt. */
export const LEASE_MS = 60_000;
/** Cloudflare allows six simultaneous outbound connections per invocation. */
export const BATCH_SIZE = 6;

/** What claiming one batch spends: the claim and the read of its submissions. */
export const BATCH_COST = { d1Queries: 2 } as const satisfies Cost;
/** The form catalog's read, when this isolate has none fresh (two statements in one batch). */
export const CATALOG_COST = { d1Queries: 2 } as const satisfies Cost;
/**
 * The most one delivery spends: its fetch (or e-mail), a confirmation's mailbox slot, and the settling
 * batch (log row, delivery row and the destination's health: docs/decisions/071).
 */
export const DELIVERY_COST = { subrequests: 1, d1Queries: 4 } as const satisfies Cost;
/** The probes' claim (two statements) and the read of their submissions. */
const PROBE_COST = { d1Queries: 3 } as const satisfies Cost;

const deliveriesCost = (n: number): Cost => ({ d1Queries: DELIVERY_COST.d1Queries * n, subrequests: DELIVERY_COST.subrequests * n });

/** For a claim's catch: the platform's refusal for a spent budget becomes null (stop), anything else throws. */
function spent(error: unknown): null {
  if (!isBudgetRefusal(error)) throw error;
  return null;
}

export interface DrainOptions {
  owner?: string;
  limit?: number;
  batchSize?: number;
  /** Claims, schedules and the budget read it; webhook signatures always use real time. */
  now?: () => number;
  fetch?: typeof fetch;
  timeoutMs?: number;
  leaseMs?: number;
  random?: () => number;
  /** Stop claiming new batches after this much wall time; claimed work still finishes. */
  budgetMs?: number;
  /** Absent or null: no send_email binding, so e-mail kinds are held. */
  mailer?: Mailer | null;
  /** This invocation's allowance (default: a fresh one for settings.plan); no batch is claimed past it. */
  budget?: InvocationBudget;
}

export interface DrainReport {
  claimed: number;
  delivered: number;
  retrying: number;
  dead: number;
  /** Claimed but given back untried: the platform refused a call for the invocation's spent budget. */
  released: number;
  /** Stopped because the budget (ours, or the platform's refusal) left no room for another batch. */
  budgetSpent: boolean;
}

const emptyReport = (): DrainReport => ({ claimed: 0, delivered: 0, retrying: 0, dead: 0, released: 0, budgetSpent: false });

/** Drains due deliveries in batches until none are due or `limit` is reached. Throws only if D1 fails. */
export async function drainOutbox(db: D1Database, settings: Settings, options: DrainOptions = {}): Promise<DrainReport> {
  return runDrain(db, settings, options);
}

/** The first attempt for one submission, run in waitUntil after "accepted". Logs instead of throwing. */
export async function deliverSubmissionNow(
  db: D1Database,
  settings: Settings,
  submissionId: string,
  options: DrainOptions = {},
): Promise<DrainReport | null> {
  try {
    return await runDrain(db, settings, { ...options, owner: options.owner ?? `accept:${submissionId}` }, submissionId);
  } catch (error) {
    // The rows are safe in D1: the scheduled drain picks them up once the lease lapses.
    console.error(`first delivery of ${submissionId} failed; the drain will retry:`, error);
    return null;
  }
}

/**
 * The first attempt at rows the accepting request leased to itself (leasedOutbox), from the submission
 * in memory: one D1 round trip to log every outcome, started after the answer. Logs instead of throwing.
 */
export async function deliverLeasedAfterResponse(
  db: D1Database,
  settings: Settings,
  form: FormDef,
  submission: StoredSubmission,
  claims: readonly Claim[],
  owner: string,
  options: Pick<DrainOptions, "fetch" | "timeoutMs" | "random" | "mailer" | "now"> = {},
): Promise<DrainReport | null> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  const report: DrainReport = { ...emptyReport(), claimed: claims.length };
  try {
    const records = await Promise.all(
      claims.map((claim) => attemptDelivery(db, settings, claim, submission, form, options.timeoutMs ?? DELIVERY_TIMEOUT_MS, options)),
    );
    const nowMs = (options.now ?? Date.now)();
    const settled = claims.map((claim, i) => settleStatements(db, claim, owner, records[i], nowMs, options.random));
    const results = await db.batch(settled.flatMap((s) => s.statements));
    let offset = 0;
    for (const one of settled) {
      report[one.outcome] += 1;
      await tellOwnerIfPaused(db, settings, form, one, results.slice(offset), { mailer: options.mailer ?? null, nowMs });
      offset += one.statements.length;
    }
    return report;
  } catch (error) {
    // The rows are safe in D1: the scheduled drain picks them up once the lease lapses.
    console.error(`first delivery of ${submission.id} failed; the drain will retry:`, error);
    return null;
  }
}

async function runDrain(db: D1Database, settings: Settings, options: DrainOptions, submissionId?: string): Promise<DrainReport> {
  const { limit = 200, batchSize = BATCH_SIZE, leaseMs = LEASE_MS, timeoutMs = DELIVERY_TIMEOUT_MS, now = Date.now } = options;
  if (leaseMs <= timeoutMs) throw new Error("the lease must outlast the delivery timeout");
  const owner = options.owner ?? `drain:${crypto.randomUUID()}`;
  const budget = options.budget ?? budgetFor(settings.plan);
  const report = emptyReport();
  // Every form, archived ones too (their stored submissions are still delivered), and the console's
  // settings layered under the environment's: read once per run, from the isolate's catalog.
  let catalog: FormCatalog | null = null;
  const stopAt = options.budgetMs === undefined ? Infinity : now() + options.budgetMs;
  const send = (claims: Claim[]) =>
    sendBatch(
      db,
      settings,
      claims,
      owner,
      { ...options, budget },
      () => catalog,
      (read) => (catalog = read),
    );
  // A paused destination's probe first (one delivery each, docs/decisions/071): the batches below skip them.
  const probes = submissionId
    ? 0
    : Math.min(batchSize, limit, budget.unitsLeft(DELIVERY_COST, { d1Queries: PROBE_COST.d1Queries + CATALOG_COST.d1Queries }));
  if (probes > 0) {
    budget.spend(PROBE_COST);
    const claims = await claimProbes(db, { owner, nowMs: now(), leaseMs, probeMs: PROBE_INTERVAL_MS, limit: probes }).catch(spent);
    if (claims === null) return { ...report, budgetSpent: true };
    if (claims.length > 0) {
      budget.spend(deliveriesCost(claims.length));
      report.claimed += claims.length;
      const batch = await send(claims);
      for (const outcome of batch.outcomes) report[outcome] += 1;
      if (batch.refused) return { ...report, budgetSpent: true };
    }
  }
  while (report.claimed < limit && now() < stopAt) {
    // Only as many as the invocation can still pay for, whole: a claimed row is always tried or given back.
    const overhead = catalog ? BATCH_COST : { d1Queries: BATCH_COST.d1Queries + CATALOG_COST.d1Queries };
    const affordable = budget.unitsLeft(DELIVERY_COST, overhead);
    const size = Math.min(batchSize, limit - report.claimed, affordable);
    if (size === 0) {
      report.budgetSpent = affordable === 0;
      break;
    }
    budget.spend(overhead);
    const claims = await claimDue(db, { owner, nowMs: now(), limit: size, leaseMs, submissionId }).catch(spent);
    if (claims === null) {
      report.budgetSpent = true;
      break;
    }
    // What the claimed rows may spend is set aside now, whole.
    budget.spend(deliveriesCost(claims.length));
    report.claimed += claims.length;
    if (claims.length === 0) break;
    const batch = await sendBatch(
      db,
      settings,
      claims,
      owner,
      options,
      () => catalog,
      (read) => (catalog = read),
    );
    for (const outcome of batch.outcomes) report[outcome] += 1;
    if (batch.refused) {
      // The platform says this invocation is spent, whatever our count said: stop; rows it left leased
      // lapse back to pending after the lease, attempts unchanged.
      report.budgetSpent = true;
      break;
    }
    if (claims.length < size) break;
  }
  return report;
}

async function sendBatch(
  db: D1Database,
  settings: Settings,
  claims: Claim[],
  owner: string,
  options: DrainOptions,
  cachedCatalog: () => FormCatalog | null,
  keepCatalog: (catalog: FormCatalog) => void,
): Promise<{ outcomes: SettleOutcome[]; refused: boolean }> {
  const { timeoutMs = DELIVERY_TIMEOUT_MS, now = Date.now } = options;
  let refused = false;
  const spared = (error: unknown): null => {
    if (!isBudgetRefusal(error)) throw error;
    refused = true;
    return null;
  };
  const submissions = await loadSubmissions(
    db,
    claims.map((claim) => claim.submissionId),
  ).catch(spared);
  let forms = cachedCatalog();
  if (!forms && submissions) {
    forms = await loadFormCatalog({ db, encryptionKeys: settings.encryptionKeys, nowMs: now() });
    keepCatalog(forms);
  }
  if (!submissions || !forms) return { outcomes: [], refused };
  const catalog = forms;
  const layered = catalogSettings(settings, catalog);
  const outcomes = await Promise.all(
    claims.map(async (claim): Promise<SettleOutcome | null> => {
      try {
        const form = catalog.forms.get(claim.formId)?.form;
        const record = await attemptDelivery(db, layered, claim, submissions.get(claim.submissionId), form, timeoutMs, options);
        if (record.error === "budget") refused = true;
        // The attempt's log row and its delivery's new state land together, in one batch.
        const settled = settleStatements(db, claim, owner, record, now(), options.random);
        const results = await db.batch(settled.statements);
        await tellOwnerIfPaused(db, layered, form, settled, results, {
          mailer: options.mailer ?? null,
          nowMs: now(),
          budget: options.budget,
        });
        return settled.outcome;
      } catch (error) {
        return spared(error);
      }
    }),
  );
  return { outcomes: outcomes.filter((outcome): outcome is SettleOutcome => outcome !== null), refused };
}

/** After a settle that counted a failure: tells the owner if that paused the destination. Never throws. */
function tellOwnerIfPaused(
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

async function attemptDelivery(
  db: D1Database,
  settings: Settings,
  claim: Claim,
  submission: StoredSubmission | undefined,
  form: FormDef | undefined,
  timeoutMs: number,
  options: Pick<DrainOptions, "fetch" | "mailer" | "now">,
): Promise<AttemptRecord> {
  if (!submission || !form) {
    const detail = !submission ? "the submission no longer exists" : `form ${claim.formId} is not defined`;
    console.error(`delivery ${claim.id} cannot be sent: ${detail}`);
    return { delivered: false, httpStatus: null, error: "config", detail, latencyMs: 0, excerpt: null };
  }
  const { fetch, mailer = null, now = Date.now } = options;
  return attemptKind({ db, settings, form, claim, submission, timeoutMs, fetch, mailer, nowMs: now() });
}

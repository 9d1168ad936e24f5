import type { Settings } from "~/lib/settings/settings.server";
import type { FormDef } from "~/forms/schema";
import { DELIVERY_TIMEOUT_MS } from "~/lib/sending/attempt.server";
import {
  attemptDelivery,
  BATCH_COST,
  CATALOG_COST,
  deliverClaims,
  deliveriesCost,
  DELIVERY_COST,
  tellOwnerIfPaused,
  type CatalogHolder,
  type DeliverOptions,
} from "~/lib/delivery/deliver-claims.server";
import { PROBE_INTERVAL_MS, settleStatements } from "~/lib/delivery/settle.server";
import { budgetFor, type Cost } from "~/lib/platform/budget.server";
import { isBudgetRefusal } from "~/lib/storage/d1-failure.server";
import { claimDue, claimProbes, type Claim } from "~/lib/storage/deliveries.server";
import type { StoredSubmission } from "~/lib/storage/submissions.server";

// Drives the outbox: claim due deliveries under a lease, send each once, log and settle. A drainer that
// dies lets its lease expire and the next claims the row again (at-least-once, same webhook-id).

/** Longer than the 10 s timeout plus logging, so a live drainer never loses its claim mid-attempt. */
export const LEASE_MS = 60_000;
/** Cloudflare allows six simultaneous outbound connections per invocation. */
export const BATCH_SIZE = 6;

const PROBE_COST = { d1Queries: 1 } as const satisfies Cost;
const PROBE_CLAIM_COST = { d1Queries: 2 } as const satisfies Cost;

/** For a claim's catch: the platform's refusal for a spent budget becomes null (stop), anything else throws. */
function spent(error: unknown): null {
  if (!isBudgetRefusal(error)) throw error;
  return null;
}

export interface DrainOptions extends DeliverOptions {
  owner?: string;
  limit?: number;
  batchSize?: number;
  leaseMs?: number;
  budgetMs?: number;
  /** Only the paused destinations' probes (the delivery queue sends the rest: docs/decisions/070). */
  probesOnly?: boolean;
}

export interface DrainReport {
  claimed: number;
  delivered: number;
  retrying: number;
  dead: number;
  released: number;
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

/** The first attempt at rows the accepting request leased to itself, from the submission in memory. Logs instead of throwing. */
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
      await tellOwnerIfPaused(db, settings, form, one, results.slice(offset, offset + one.statements.length), {
        mailer: options.mailer ?? null,
        nowMs,
      });
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
  // Every form, archived ones too, read once per run from the isolate's catalog.
  const holder: CatalogHolder = { catalog: null };
  const stopAt = options.budgetMs === undefined ? Infinity : now() + options.budgetMs;
  const send = async (claims: Claim[]) => {
    const batch = await deliverClaims(db, settings, claims, owner, { ...options, budget }, holder);
    for (const result of batch.results) if (result) report[result.outcome] += 1;
    return batch;
  };
  // A paused destination's probe first (ADR 071): the batches below skip them.
  const probes = submissionId
    ? 0
    : Math.min(
        batchSize,
        limit,
        budget.unitsLeft(DELIVERY_COST, { d1Queries: PROBE_COST.d1Queries + PROBE_CLAIM_COST.d1Queries + CATALOG_COST.d1Queries }),
      );
  if (probes > 0) {
    budget.spend(PROBE_COST);
    const claims = await claimProbes(db, { owner, nowMs: now(), leaseMs, probeMs: PROBE_INTERVAL_MS, limit: probes }).catch(spent);
    if (claims === null) return { ...report, budgetSpent: true };
    if (claims.length > 0) {
      budget.spend(PROBE_CLAIM_COST);
      budget.spend(deliveriesCost(claims.length));
      report.claimed += claims.length;
      const batch = await send(claims);
      if (batch.refused) return { ...report, budgetSpent: true };
    }
  }
  while (!options.probesOnly && report.claimed < limit && now() < stopAt) {
    // Only as many as the invocation can still pay for, whole: a claimed row is always tried or given back.
    const overhead = holder.catalog ? BATCH_COST : { d1Queries: BATCH_COST.d1Queries + CATALOG_COST.d1Queries };
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
    budget.spend(deliveriesCost(claims.length));
    report.claimed += claims.length;
    if (claims.length === 0) break;
    const batch = await send(claims);
    if (batch.refused) {
      // The platform says this invocation is spent: stop; leased rows lapse back to pending, attempts unchanged.
      report.budgetSpent = true;
      break;
    }
    if (claims.length < size) break;
  }
  return report;
}

import type { Settings } from "~/lib/settings/settings.server";
import type { FormDef } from "~/forms/schema";
import { loadFormCatalog, type FormCatalog } from "~/lib/forms/catalog.server";
import { catalogSettings } from "~/lib/forms/live.server";
import { parseSubmissionRow, type StoredSubmission } from "~/lib/storage/submissions.server";
import { DELIVERY_TIMEOUT_MS } from "~/lib/delivery/attempt.server";
import type { AttemptRecord } from "~/lib/delivery/attempt.server";
import { attemptKind } from "~/lib/delivery/dispatch.server";
import { settleStatements } from "~/lib/delivery/settle.server";
import type { Mailer } from "~/lib/delivery/mailer.server";

// Drives the outbox: claim due deliveries under a lease, send each once, log the attempt and either
// finish the delivery or schedule the next try. A drainer that dies mid-way simply lets its lease
// expire; the next drain claims the row again (at-least-once, same webhook-id).

/** Longer than the 10 s timeout plus logging, so a live drainer never loses its claim mid-attempt. */
export const LEASE_MS = 60_000;
/** Cloudflare allows six simultaneous outbound connections per invocation. */
export const BATCH_SIZE = 6;

export interface DrainOptions {
  /** Names the claim holder; unique per drainer run. */
  owner?: string;
  /** Most deliveries to attempt in this run. */
  limit?: number;
  batchSize?: number;
  /** Scheduling clock (claims, next_attempt_at, attempted_at). Signatures always use real time. */
  nowMs?: number;
  fetch?: typeof fetch;
  timeoutMs?: number;
  leaseMs?: number;
  random?: () => number;
  /** Stop claiming new batches after this much wall time; claimed work still finishes. */
  budgetMs?: number;
  /** How e-mail kinds are sent; null or absent: the Worker has no send_email binding, so they are held. */
  mailer?: Mailer | null;
}

export interface DrainReport {
  claimed: number;
  delivered: number;
  retrying: number;
  dead: number;
}

export interface Claim {
  id: string;
  submissionId: string;
  formId: string;
  destination: string;
  attempts: number;
}

const CLAIM = `UPDATE deliveries SET lease_owner = ?1, lease_until = ?2
  WHERE id IN (
    SELECT id FROM deliveries
    WHERE status = 'pending' AND next_attempt_at <= ?3 AND (lease_until IS NULL OR lease_until <= ?3)
      FILTER
    ORDER BY next_attempt_at LIMIT ?4)
  RETURNING id, submission_id, form_id, destination, attempts`;

/** Leases up to `limit` due deliveries (optionally of one submission). One atomic statement. */
export async function claimDue(
  db: D1Database,
  owner: string,
  nowMs: number,
  limit: number,
  leaseMs = LEASE_MS,
  submissionId?: string,
): Promise<Claim[]> {
  const sql = CLAIM.replace("FILTER", submissionId ? "AND submission_id = ?5" : "");
  const params: unknown[] = [owner, nowMs + leaseMs, nowMs, limit];
  if (submissionId) params.push(submissionId);
  const { results } = await db
    .prepare(sql)
    .bind(...params)
    .all<Record<string, unknown>>();
  return results.map((row) => ({
    id: String(row.id),
    submissionId: String(row.submission_id),
    formId: String(row.form_id),
    destination: String(row.destination),
    attempts: Number(row.attempts),
  }));
}

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
 * The first attempt at deliveries the accepting request inserted already leased to `owner`
 * (outbox.server leasedOutbox), sent from the submission it holds in memory: no claim and no re-read,
 * one D1 round trip to log every outcome. Started once the current task is done, so the answer goes
 * out first. For ctx.waitUntil; logs instead of throwing, and the drain covers anything it misses.
 */
export async function deliverLeasedAfterResponse(
  db: D1Database,
  settings: Settings,
  form: FormDef,
  submission: StoredSubmission,
  claims: readonly Claim[],
  owner: string,
  options: Pick<DrainOptions, "fetch" | "timeoutMs" | "random" | "mailer"> = {},
): Promise<DrainReport | null> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  const report: DrainReport = { claimed: claims.length, delivered: 0, retrying: 0, dead: 0 };
  try {
    const records = await Promise.all(
      claims.map((claim) => attemptDelivery(db, settings, claim, submission, form, options.timeoutMs ?? DELIVERY_TIMEOUT_MS, options)),
    );
    const nowMs = Date.now();
    const settled = claims.map((claim, i) => settleStatements(db, claim, owner, records[i], nowMs, options.random));
    await db.batch(settled.flatMap((s) => s.statements));
    for (const { outcome } of settled) report[outcome] += 1;
    return report;
  } catch (error) {
    // The rows are safe in D1: the scheduled drain picks them up once the lease lapses.
    console.error(`first delivery of ${submission.id} failed; the drain will retry:`, error);
    return null;
  }
}

async function runDrain(db: D1Database, settings: Settings, options: DrainOptions, submissionId?: string): Promise<DrainReport> {
  const { limit = 200, batchSize = BATCH_SIZE, leaseMs = LEASE_MS, timeoutMs = DELIVERY_TIMEOUT_MS } = options;
  if (leaseMs <= timeoutMs) throw new Error("the lease must outlast the delivery timeout");
  const owner = options.owner ?? `drain:${crypto.randomUUID()}`;
  const report: DrainReport = { claimed: 0, delivered: 0, retrying: 0, dead: 0 };
  // Every form, archived ones too (their stored submissions are still delivered), and the console's
  // settings layered under the environment's: read once per run, from the isolate's catalog.
  let catalog: FormCatalog | null = null;
  const stopAt = options.budgetMs === undefined ? Infinity : Date.now() + options.budgetMs;
  while (report.claimed < limit && Date.now() < stopAt) {
    const nowMs = options.nowMs ?? Date.now();
    const size = Math.min(batchSize, limit - report.claimed);
    const claims = await claimDue(db, owner, nowMs, size, leaseMs, submissionId);
    report.claimed += claims.length;
    if (claims.length === 0) break;
    const submissions = await loadSubmissions(db, claims);
    catalog ??= await loadFormCatalog({ db, encryptionKeys: settings.encryptionKeys, nowMs: Date.now() });
    const forms = catalog;
    const layered = catalogSettings(settings, forms);
    const outcomes = await Promise.all(
      claims.map(async (claim) => {
        const form = forms.forms.get(claim.formId)?.form;
        const record = await attemptDelivery(db, layered, claim, submissions.get(claim.submissionId), form, timeoutMs, options);
        // The attempt's log row and its delivery's new state land together, in one batch.
        const { statements, outcome } = settleStatements(db, claim, owner, record, options.nowMs ?? Date.now(), options.random);
        await db.batch(statements);
        return outcome;
      }),
    );
    for (const outcome of outcomes) report[outcome] += 1;
    if (claims.length < size) break;
  }
  return report;
}

async function loadSubmissions(db: D1Database, claims: Claim[]): Promise<Map<string, StoredSubmission>> {
  const ids = [...new Set(claims.map((c) => c.submissionId))];
  const { results } = await db
    .prepare("SELECT * FROM submissions WHERE id IN (SELECT value FROM json_each(?1))")
    .bind(JSON.stringify(ids))
    .all<Record<string, unknown>>();
  return new Map(results.map((row) => [String(row.id), parseSubmissionRow(row)]));
}

async function attemptDelivery(
  db: D1Database,
  settings: Settings,
  claim: Claim,
  submission: StoredSubmission | undefined,
  form: FormDef | undefined,
  timeoutMs: number,
  options: Pick<DrainOptions, "fetch" | "mailer">,
): Promise<AttemptRecord> {
  if (!submission || !form) {
    const detail = !submission ? "the submission no longer exists" : `form ${claim.formId} is not defined`;
    console.error(`delivery ${claim.id} cannot be sent: ${detail}`);
    return { delivered: false, httpStatus: null, error: "config", detail, latencyMs: 0, excerpt: null };
  }
  return attemptKind({ db, settings, form, claim, submission, timeoutMs, fetch: options.fetch, mailer: options.mailer ?? null });
}

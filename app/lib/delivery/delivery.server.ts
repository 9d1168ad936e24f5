import type { Settings } from "~/lib/settings/settings.server";
import { findForm } from "~/forms/registry";
import { EMAIL_KINDS } from "~/lib/delivery/destinations.server";
import { parseSubmissionRow, type StoredSubmission } from "~/lib/storage/submissions.server";
import { DELIVERY_TIMEOUT_MS } from "~/lib/delivery/webhook.server";
import type { AttemptRecord } from "~/lib/delivery/attempt.server";
import { attemptKind } from "~/lib/delivery/dispatch.server";
import type { Mailer } from "~/lib/delivery/mailer.server";

// Drives the outbox: claim due deliveries under a lease, send each once, log the attempt and either
// finish the delivery or schedule the next try. A drainer that dies mid-way simply lets its lease
// expire; the next drain claims the row again (at-least-once, same webhook-id).

/** Waits after attempt 1, 2, …: about 44 h in all, so a receiver down for a day still gets everything. */
export const RETRY_DELAYS_MS = [10e3, 60e3, 300e3, 1_800e3, 7_200e3, 21_600e3, 43_200e3, 86_400e3] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** ±20 % jitter spreads retries of many deliveries that failed together. */
export const JITTER = 0.2;
/** Longer than the 10 s timeout plus logging, so a live drainer never loses its claim mid-attempt. */
export const LEASE_MS = 60_000;
/** Cloudflare allows six simultaneous outbound connections per invocation. */
export const BATCH_SIZE = 6;
/**
 * A delivery whose settings are missing or bad is held, not dropped: it keeps its attempts and is
 * looked at again this often, so fixing the setting heals it within minutes (docs/destinations.md).
 */
export const HOLD_RECHECK_MS = 5 * 60_000;

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
  /**
   * How e-mail kinds are sent. Absent: this runtime cannot send e-mail (the Pages app), so e-mail rows
   * are left to the drain Worker. null: the Worker has no send_email binding, so they are held.
   */
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

/** The delay before the attempt after `attemptsSoFar` failures, with jitter; null once it is the last. */
export function nextRetryDelayMs(attemptsSoFar: number, random: () => number = Math.random): number | null {
  if (attemptsSoFar >= MAX_ATTEMPTS) return null;
  const base = RETRY_DELAYS_MS[attemptsSoFar - 1];
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}

const CLAIM = `UPDATE deliveries SET lease_owner = ?1, lease_until = ?2
  WHERE id IN (
    SELECT id FROM deliveries
    WHERE status = 'pending' AND next_attempt_at <= ?3 AND (lease_until IS NULL OR lease_until <= ?3)
      AND destination NOT IN (SELECT value FROM json_each(?5)) FILTER
    ORDER BY next_attempt_at LIMIT ?4)
  RETURNING id, submission_id, form_id, destination, attempts`;

/** Leases up to `limit` due deliveries (optionally of one submission, never of `skipKinds`). One atomic statement. */
export async function claimDue(
  db: D1Database,
  owner: string,
  nowMs: number,
  limit: number,
  leaseMs = LEASE_MS,
  submissionId?: string,
  skipKinds: readonly string[] = [],
): Promise<Claim[]> {
  const sql = CLAIM.replace("FILTER", submissionId ? "AND submission_id = ?6" : "");
  const params: unknown[] = [owner, nowMs + leaseMs, nowMs, limit, JSON.stringify(skipKinds)];
  if (submissionId) params.push(submissionId);
  const { results } = await db.prepare(sql).bind(...params).all<Record<string, unknown>>();
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
  submission: StoredSubmission,
  claims: readonly Claim[],
  owner: string,
  options: Pick<DrainOptions, "fetch" | "timeoutMs" | "random" | "mailer"> = {},
): Promise<DrainReport | null> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  // E-mail rows go back to the queue at once for the drain Worker, which holds send_email (ADR 016).
  const here = options.mailer === undefined ? claims.filter((claim) => !EMAIL_KINDS.has(claim.destination)) : [...claims];
  const handedOver = claims.filter((claim) => !here.includes(claim));
  const report: DrainReport = { claimed: here.length, delivered: 0, retrying: 0, dead: 0 };
  try {
    const records = await Promise.all(
      here.map((claim) => attemptDelivery(db, settings, claim, submission, options.timeoutMs ?? DELIVERY_TIMEOUT_MS, options)),
    );
    const nowMs = Date.now();
    const settled = here.map((claim, i) => settleStatements(db, claim, owner, records[i], nowMs, options.random));
    const released = handedOver.map((claim) =>
      db.prepare("UPDATE deliveries SET lease_owner = NULL, lease_until = NULL WHERE id = ?1 AND lease_owner = ?2").bind(claim.id, owner),
    );
    await db.batch([...settled.flatMap((s) => s.statements), ...released]);
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
  const stopAt = options.budgetMs === undefined ? Infinity : Date.now() + options.budgetMs;
  while (report.claimed < limit && Date.now() < stopAt) {
    const nowMs = options.nowMs ?? Date.now();
    const size = Math.min(batchSize, limit - report.claimed);
    const skipKinds = options.mailer === undefined ? [...EMAIL_KINDS] : [];
    const claims = await claimDue(db, owner, nowMs, size, leaseMs, submissionId, skipKinds);
    report.claimed += claims.length;
    if (claims.length === 0) break;
    const submissions = await loadSubmissions(db, claims);
    const outcomes = await Promise.all(
      claims.map(async (claim) => {
        const record = await attemptDelivery(db, settings, claim, submissions.get(claim.submissionId), timeoutMs, options);
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
  timeoutMs: number,
  options: Pick<DrainOptions, "fetch" | "mailer">,
): Promise<AttemptRecord> {
  const form = findForm(claim.formId);
  if (!submission || !form) {
    const detail = !submission ? "the submission no longer exists" : `form ${claim.formId} is not defined`;
    console.error(`delivery ${claim.id} cannot be sent: ${detail}`);
    return { delivered: false, httpStatus: null, error: "config", detail, latencyMs: 0, excerpt: null };
  }
  return attemptKind({ db, settings, form, claim, submission, timeoutMs, fetch: options.fetch, mailer: options.mailer ?? null });
}

/** The attempt's log row and the update that settles its delivery, and which way it went. */
function settleStatements(
  db: D1Database,
  claim: Claim,
  owner: string,
  record: AttemptRecord,
  nowMs: number,
  random?: () => number,
): { statements: D1PreparedStatement[]; outcome: "delivered" | "retrying" | "dead" } {
  const attemptedAt = new Date(nowMs).toISOString();
  const log = db
    .prepare(
      `INSERT INTO delivery_attempts (delivery_id, attempted_at, http_status, error, latency_ms, response_excerpt)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6)`,
    )
    .bind(claim.id, attemptedAt, record.httpStatus, record.error, record.latencyMs, record.excerpt);
  if (record.delivered) {
    // A success always wins, even if this drainer's lease lapsed: the receiver has it. A skipped
    // confirmation is settled the same way, with the reason kept in last_error.
    const done = db
      .prepare(
        `UPDATE deliveries SET status = 'delivered', attempts = attempts + 1, delivered_at = ?2,
           lease_owner = NULL, lease_until = NULL, last_error = ?3
         WHERE id = ?1 AND status = 'pending'`,
      )
      .bind(claim.id, attemptedAt, record.error === "skipped" ? record.detail : null);
    return { statements: [log, done], outcome: "delivered" };
  }
  if (record.error === "config") {
    // Held: the attempt budget is kept for when the setting is fixed. The log gets a row only when
    // the reason changes, so a delivery held for days does not write one every few minutes.
    const logOnChange = db
      .prepare(
        `INSERT INTO delivery_attempts (delivery_id, attempted_at, http_status, error, latency_ms, response_excerpt)
         SELECT ?1, ?2, NULL, 'config', ?3, NULL
         WHERE NOT EXISTS (SELECT 1 FROM deliveries WHERE id = ?1 AND last_error IS ?4)`,
      )
      .bind(claim.id, attemptedAt, record.latencyMs, record.detail);
    const hold = db
      .prepare(
        `UPDATE deliveries SET next_attempt_at = ?3, last_error = ?4, lease_owner = NULL, lease_until = NULL
         WHERE id = ?1 AND lease_owner = ?2 AND status = 'pending'`,
      )
      .bind(claim.id, owner, nowMs + HOLD_RECHECK_MS, record.detail);
    return { statements: [logOnChange, hold], outcome: "retrying" };
  }
  const attempts = claim.attempts + 1;
  // A destination that says it no longer exists is dead now, not after 44 h of asking again.
  const scheduled = record.error === "gone" ? null : nextRetryDelayMs(attempts, random);
  // A 429's Retry-After is honoured: the next attempt is never sooner than it asks.
  const delay = scheduled === null ? null : Math.max(scheduled, record.retryAfterMs ?? 0);
  // A failure only counts while the lease is still ours; otherwise someone else owns the row now.
  const retry = db
    .prepare(
      `UPDATE deliveries SET attempts = ?3, status = ?4, next_attempt_at = ?5, last_error = ?6,
         lease_owner = NULL, lease_until = NULL
       WHERE id = ?1 AND lease_owner = ?2 AND status = 'pending'`,
    )
    .bind(claim.id, owner, attempts, delay === null ? "dead" : "pending", nowMs + (delay ?? 0), record.detail);
  return { statements: [log, retry], outcome: delay === null ? "dead" : "retrying" };
}

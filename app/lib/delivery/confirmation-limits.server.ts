import type { FormDef } from "~/forms/schema";
import type { Settings } from "~/lib/settings/settings.server";
import { CONFIRMATION_WINDOW_MS, confirmationKey } from "~/lib/delivery/confirmation.server";
import { configuredDestinations, submitterAddress } from "~/lib/delivery/destinations.server";
import { networkSubject, rateLimitStatement, ruleIsFull, type RateRule } from "~/lib/http/rate-limit.server";

// How many confirmations go out (docs/decisions/025): a stranger's address typed into a form must not
// become a way to mail that stranger in bulk. Three limits, all decided inside the accept batch (the
// one D1 round trip, docs/decisions/012), so they cost no trip of their own:
// - one per mailbox per 24 h per form, the address's variants folded together (mailbox.server.ts);
// - PER_NETWORK an hour from one client network (IPv6 /48, IPv4 address), however many addresses;
// - SITE an hour for the whole site, however many networks.
// A submission over a limit is accepted as ever: only its confirmation is settled at once as skipped,
// with the reason as its note and a `skipped` attempt in its log. Counts move only for a confirmation
// actually queued, so skipped ones never hold a window shut.

export const CONFIRMATION_LIMITS = {
  perNetwork: { limit: 10, windowSeconds: 3_600 },
  site: { limit: 100, windowSeconds: 3_600 },
} as const;

export const SKIPPED = {
  noAddress: "not sent: the sender's address is missing or not a valid e-mail address",
  mailbox: "not sent: this mailbox already got a confirmation from this form in the last 24 h",
  network: `not sent: ${CONFIRMATION_LIMITS.perNetwork.limit} confirmations already went out from this network in the last hour`,
  site: "not sent: the site's hourly limit of confirmations is reached",
} as const;

/** What the accept batch needs to limit one submission's confirmation, worked out before the batch. */
export interface ConfirmationGate {
  /** The folded mailbox's key, or null when the sender gave no valid address. */
  mailboxKey: string | null;
  rules: { network: RateRule; site: RateRule };
}

/** The two counted windows a confirmation from `ip` is held to. */
export function confirmationRateRules(ip: string | null): { network: RateRule; site: RateRule } {
  return {
    network: { key: `confirmation:network:${networkSubject(ip)}`, ...CONFIRMATION_LIMITS.perNetwork },
    site: { key: "confirmation:site", ...CONFIRMATION_LIMITS.site },
  };
}

/** The gate for a submission's confirmation, or null when its form sends none. Never throws. */
export async function confirmationGate(
  settings: Settings,
  form: FormDef,
  fields: Readonly<Record<string, unknown>>,
  ip: string | null,
): Promise<ConfirmationGate | null> {
  if (!configuredDestinations(settings, form).some((d) => d.kind === "confirmation")) return null;
  const address = submitterAddress(form, fields);
  return { mailboxKey: address ? await confirmationKey(form.id, address) : null, rules: confirmationRateRules(ip) };
}

export interface ConfirmationRow {
  id: string;
  submissionId: string;
  formId: string;
  nowMs: number;
  lease: { owner: string; untilMs: number } | null;
}

/**
 * The statements that queue one confirmation inside the accept batch: its delivery row, pending when
 * every limit has room and else settled as skipped with the reason (it comes back with its status, so
 * the first attempt after the answer leaves a settled one alone); then, only for a pending one, the
 * network and site counts and the mailbox's slot; for a skipped one, its `skipped` attempt. Pure.
 */
export function confirmationStatements(db: D1Database, row: ConfirmationRow, gate: ConfirmationGate): D1PreparedStatement[] {
  const { id, submissionId, formId, nowMs, lease } = row;
  const createdAt = new Date(nowMs).toISOString();
  const params: unknown[] = [id, submissionId, formId, nowMs, createdAt, lease?.owner ?? null, lease?.untilMs ?? null];
  const bind = (value: unknown) => `?${params.push(value)}`;
  const full = (rule: RateRule) => {
    const condition = ruleIsFull(rule, nowMs);
    const sql = condition.sql(params.length + 1);
    params.push(...condition.params);
    return sql;
  };
  const mailbox = bind(gate.mailboxKey);
  const reason = `CASE
      WHEN ${mailbox} IS NULL THEN ${bind(SKIPPED.noAddress)}
      WHEN EXISTS (SELECT 1 FROM confirmation_limits WHERE form_id = ?3 AND address_key = ${mailbox}
        AND sent_at > ${bind(nowMs - CONFIRMATION_WINDOW_MS)}) THEN ${bind(SKIPPED.mailbox)}
      WHEN ${full(gate.rules.network)} THEN ${bind(SKIPPED.network)}
      WHEN ${full(gate.rules.site)} THEN ${bind(SKIPPED.site)}
    END`;
  // Only beside a stored submission, like every outbox row (outbox.server.ts).
  const insert = db
    .prepare(
      `INSERT INTO deliveries (id, submission_id, form_id, destination, status, attempts, next_attempt_at, created_at,
         lease_owner, lease_until, last_error, delivered_at)
       SELECT ?1, ?2, ?3, 'confirmation', CASE WHEN r.reason IS NULL THEN 'pending' ELSE 'delivered' END,
         CASE WHEN r.reason IS NULL THEN 0 ELSE 1 END, ?4, ?5,
         CASE WHEN r.reason IS NULL THEN ?6 END, CASE WHEN r.reason IS NULL THEN ?7 END,
         r.reason, CASE WHEN r.reason IS NULL THEN NULL ELSE ?5 END
       FROM (SELECT ${reason} AS reason) AS r
       WHERE EXISTS (SELECT 1 FROM submissions WHERE id = ?2)
       RETURNING id, status`,
    )
    .bind(...params);
  const queued = { sql: (n: number) => `EXISTS (SELECT 1 FROM deliveries WHERE id = ?${n} AND status = 'pending')`, params: [id] };
  const count = rateLimitStatement(db, [gate.rules.network, gate.rules.site], nowMs, queued);
  const slot = db
    .prepare(
      `INSERT INTO confirmation_limits (form_id, address_key, delivery_id, sent_at)
       SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM deliveries WHERE id = ?3 AND status = 'pending')
       ON CONFLICT (form_id, address_key) DO UPDATE SET delivery_id = excluded.delivery_id, sent_at = excluded.sent_at`,
    )
    .bind(formId, gate.mailboxKey, id, nowMs);
  const skippedLog = db
    .prepare(
      `INSERT INTO delivery_attempts (delivery_id, attempted_at, http_status, error, latency_ms, response_excerpt)
       SELECT ?1, ?2, NULL, 'skipped', 0, NULL WHERE EXISTS (SELECT 1 FROM deliveries WHERE id = ?1 AND status = 'delivered')`,
    )
    .bind(id, createdAt);
  return [insert, count, slot, skippedLog];
}

import type { FormDef } from "~/forms/schema";
import type { Settings } from "~/lib/settings/settings.server";
import { CONFIRMATION_WINDOW_MS, confirmationKey } from "~/lib/delivery/confirmation.server";
import { configuredDestinations, submitterAddress } from "~/lib/delivery/destinations.server";
import sql from "sql-template-tag";
import { networkSubject, rateLimitStatement, ruleIsFull, type RateRule } from "~/lib/http/rate-limit.server";
import { statement } from "~/lib/storage/sql.server";

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
  const { mailboxKey, rules } = gate;
  const reason = sql`CASE
      WHEN ${mailboxKey} IS NULL THEN ${SKIPPED.noAddress}
      WHEN EXISTS (SELECT 1 FROM confirmation_limits WHERE form_id = ${formId} AND address_key = ${mailboxKey}
        AND sent_at > ${nowMs - CONFIRMATION_WINDOW_MS}) THEN ${SKIPPED.mailbox}
      WHEN ${ruleIsFull(rules.network, nowMs)} THEN ${SKIPPED.network}
      WHEN ${ruleIsFull(rules.site, nowMs)} THEN ${SKIPPED.site}
    END`;
  // Only beside a stored submission, like every outbox row (outbox.server.ts).
  const insert = statement(
    db,
    sql`INSERT INTO deliveries (id, submission_id, form_id, destination, status, attempts, next_attempt_at, created_at,
         lease_owner, lease_until, last_error, delivered_at)
       SELECT ${id}, ${submissionId}, ${formId}, 'confirmation', CASE WHEN r.reason IS NULL THEN 'pending' ELSE 'delivered' END,
         CASE WHEN r.reason IS NULL THEN 0 ELSE 1 END, ${nowMs}, ${createdAt},
         CASE WHEN r.reason IS NULL THEN ${lease?.owner ?? null} END, CASE WHEN r.reason IS NULL THEN ${lease?.untilMs ?? null} END,
         r.reason, CASE WHEN r.reason IS NULL THEN NULL ELSE ${createdAt} END
       FROM (SELECT ${reason} AS reason) AS r
       WHERE EXISTS (SELECT 1 FROM submissions WHERE id = ${submissionId})
       RETURNING id, status`,
  );
  const queued = { sql: (n: number) => `EXISTS (SELECT 1 FROM deliveries WHERE id = ?${n} AND status = 'pending')`, params: [id] };
  const count = rateLimitStatement(db, [rules.network, rules.site], nowMs, queued);
  const slot = statement(
    db,
    sql`INSERT INTO confirmation_limits (form_id, address_key, delivery_id, sent_at)
       SELECT ${formId}, ${mailboxKey}, ${id}, ${nowMs} WHERE EXISTS (SELECT 1 FROM deliveries WHERE id = ${id} AND status = 'pending')
       ON CONFLICT (form_id, address_key) DO UPDATE SET delivery_id = excluded.delivery_id, sent_at = excluded.sent_at`,
  );
  const skippedLog = statement(
    db,
    sql`INSERT INTO delivery_attempts (delivery_id, attempted_at, http_status, error, latency_ms, response_excerpt)
       SELECT ${id}, ${createdAt}, NULL, 'skipped', 0, NULL WHERE EXISTS (SELECT 1 FROM deliveries WHERE id = ${id} AND status = 'delivered')`,
  );
  return [insert, count, slot, skippedLog];
}

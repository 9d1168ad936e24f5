import type { FormDef } from "~/forms/schema";
import type { Settings } from "~/lib/settings/settings.server";
import { CONFIRMATION_WINDOW_MS, confirmationKey } from "~/lib/destinations/confirmation/sender.server";
import { configuredDestinations } from "~/lib/destinations/configured.server";
import { submitterAddress } from "~/lib/sending/submitter-address.server";
import { networkSubject } from "~/lib/http/client-ip.server";
import type { RateRule } from "~/lib/http/rate-limit.server";
import {
  confirmationStatements as limitedStatements,
  type ConfirmationRow,
  type ConfirmationStatements,
} from "~/lib/storage/confirmation-limits.server";

// How many confirmations go out (docs/decisions/025), so a stranger's address typed into a form cannot
// be mailed in bulk: one per folded mailbox per 24 h per form, a few an hour per client network, a cap
// an hour for the site, all decided in the accept batch. Over a limit, only the confirmation is skipped.

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

/** The confirmation's name as a kind and in the outbox. */
export const CONFIRMATION_KIND = "confirmation";

/** Whether the accept batch's gate decides this delivery (the confirmation's), rather than the outbox alone. */
export function isGatedClaim(claim: { destination: string }): boolean {
  return claim.destination === CONFIRMATION_KIND;
}

/** The gate for a submission's confirmation, or null when its form sends none. Never throws. */
export async function confirmationGate(
  settings: Settings,
  form: FormDef,
  fields: Readonly<Record<string, unknown>>,
  ip: string | null,
): Promise<ConfirmationGate | null> {
  if (!configuredDestinations(settings, form).some((d) => d.kind === CONFIRMATION_KIND)) return null;
  const address = submitterAddress(form, fields);
  return { mailboxKey: address ? await confirmationKey(form.id, address) : null, rules: confirmationRateRules(ip) };
}

/** The accept batch's statements for one confirmation, held to these limits. Pure. */
export function confirmationStatements(db: D1Database, row: ConfirmationRow, gate: ConfirmationGate): ConfirmationStatements {
  return limitedStatements(db, row, { mailboxKey: gate.mailboxKey, windowMs: CONFIRMATION_WINDOW_MS, ...gate.rules, reasons: SKIPPED });
}

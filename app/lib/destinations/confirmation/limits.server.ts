import type { FormDef } from "~/forms/schema";
import type { Settings } from "~/lib/settings/settings.server";
import { sha256Hex } from "~/lib/crypto/digest";
import type { BatchGate } from "~/lib/destinations/sender.server";
import { foldMailbox } from "~/lib/sending/mailbox.server";
import { submitterAddress } from "~/lib/sending/submitter-address.server";
import { networkSubject } from "~/lib/http/client-ip.server";
import type { RateRule } from "~/lib/http/rate-limit.server";
import { confirmationStatements as limitedStatements } from "~/lib/storage/confirmation-limits.server";

// How many confirmations go out (docs/decisions/025), so a stranger's address typed into a form cannot
// be mailed in bulk: one per folded mailbox per 24 h per form, a few an hour per client network, a cap
// an hour for the site, all decided in the accept batch. Over a limit, only the confirmation is skipped.

export const CONFIRMATION_WINDOW_MS = 24 * 3_600_000;

/** SHA-256 of form and folded mailbox (mailbox.server.ts): the limit table never holds the address itself. */
export async function confirmationKey(formId: string, address: string): Promise<string> {
  const mailbox = foldMailbox(address) ?? address.toLowerCase();
  return sha256Hex(`gatepost-confirmation:${formId}:${mailbox}`);
}

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

/** The two counted windows a confirmation from `ip` is held to. */
export function confirmationRateRules(ip: string | null): { network: RateRule; site: RateRule } {
  return {
    network: { key: `confirmation:network:${networkSubject(ip)}`, ...CONFIRMATION_LIMITS.perNetwork },
    site: { key: "confirmation:site", ...CONFIRMATION_LIMITS.site },
  };
}

/** The gate for a submission's confirmation (its form sends one: the caller checked). Never throws. */
export async function confirmationGate(
  _settings: Settings,
  form: FormDef,
  fields: Readonly<Record<string, unknown>>,
  ip: string | null,
): Promise<BatchGate> {
  const address = submitterAddress(form, fields);
  const mailboxKey = address ? await confirmationKey(form.id, address) : null;
  const rules = confirmationRateRules(ip);
  return {
    kind: "confirmation",
    statements: (db, row) => limitedStatements(db, row, { mailboxKey, windowMs: CONFIRMATION_WINDOW_MS, ...rules, reasons: SKIPPED }),
  };
}

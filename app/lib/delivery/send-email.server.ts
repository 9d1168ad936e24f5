import { errorText, type AttemptRecord } from "~/lib/delivery/attempt.server";
import type { Mailer } from "~/lib/delivery/mailer.server";
import { countOf } from "~/lib/text/count";

/** send_email's refusals of a recipient it will never take (platform reference: Email Service error codes). */
const RECIPIENT_REFUSALS = new Set(["E_RECIPIENT_NOT_ALLOWED", "E_RECIPIENT_SUPPRESSED"]);

/** True when the e-mail service refused the recipient itself, not the moment: asking again will not help. */
export function isRecipientRefusal(error: unknown): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code === "string" && RECIPIENT_REFUSALS.has(code)) return true;
  // Email Routing's wording for an address not verified on the account.
  return /not a verified (destination )?address|E_RECIPIENT_(NOT_ALLOWED|SUPPRESSED)/i.test(errorText(error));
}

/**
 * Sends `raw` to each recipient in turn (send_email takes one envelope recipient per message).
 * A refusal stops there and is logged as `rejected`; the retry sends to every recipient again.
 */
export async function sendEmailAttempt(mailer: Mailer, from: string, recipients: readonly string[], raw: string): Promise<AttemptRecord> {
  const started = Date.now();
  for (const to of recipients) {
    try {
      await mailer.send({ from, to, raw });
    } catch (error) {
      return {
        delivered: false,
        httpStatus: null,
        error: "rejected",
        detail: `the e-mail service refused the message to ${to}: ${errorText(error)}`,
        latencyMs: Date.now() - started,
        excerpt: null,
        ...(isRecipientRefusal(error) ? { recipientRefused: true } : {}),
      };
    }
  }
  const excerpt = `sent to ${countOf(recipients.length, "recipient", "recipients")}`;
  return { delivered: true, httpStatus: null, error: null, detail: null, latencyMs: Date.now() - started, excerpt };
}

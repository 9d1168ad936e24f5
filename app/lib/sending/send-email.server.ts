import { budgetRefused, errorText, type AttemptRecord } from "~/lib/sending/attempt.server";
import { isBudgetRefusal } from "~/lib/storage/d1-failure.server";
import type { Mailer, OutgoingParts } from "~/lib/sending/mailer.server";
import { countOf } from "~/lib/text/count";

/** send_email's refusals of a recipient it will never take (platform reference: Email Service error codes). */
const RECIPIENT_REFUSALS = new Set(["E_RECIPIENT_NOT_ALLOWED", "E_RECIPIENT_SUPPRESSED"]);

/** The service's refusals of the moment: its sending limits (a new account's daily quota). Retried later as a 429 is. */
const LIMIT_REFUSALS = new Set(["E_RATE_LIMIT_EXCEEDED", "E_DAILY_LIMIT_EXCEEDED"]);

function codeOf(error: unknown): string | undefined {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : undefined;
}

/** True when the e-mail service refused for its sending limit: not the recipient, the day (or hour). */
export function isLimitRefusal(error: unknown): boolean {
  const code = codeOf(error);
  return (code !== undefined && LIMIT_REFUSALS.has(code)) || /E_(RATE|DAILY)_LIMIT_EXCEEDED|daily (sending )?limit/i.test(errorText(error));
}

/** True when the e-mail service refused the recipient itself, not the moment: asking again will not help. */
export function isRecipientRefusal(error: unknown): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code === "string" && RECIPIENT_REFUSALS.has(code)) return true;
  // Email Routing's wording for an address not verified on the account.
  return /not a verified (destination )?address|E_RECIPIENT_(NOT_ALLOWED|SUPPRESSED)/i.test(errorText(error));
}

/** Sends `raw` to each recipient in turn (one envelope recipient per message); a refusal stops there as `rejected`. */
export async function sendEmailAttempt(
  mailer: Mailer,
  from: string,
  recipients: readonly string[],
  raw: string,
  parts?: OutgoingParts,
): Promise<AttemptRecord> {
  const started = Date.now();
  for (const to of recipients) {
    try {
      await mailer.send({ from, to, raw, ...(parts ? { parts } : {}) });
    } catch (error) {
      // Not the provider's refusal but the platform's (this invocation's allowance is spent): not counted.
      if (isBudgetRefusal(error)) return budgetRefused(error, Date.now() - started);
      if (isLimitRefusal(error)) {
        return {
          delivered: false,
          httpStatus: null,
          error: "rate_limited",
          detail: `the e-mail service's sending limit is reached (${[codeOf(error), errorText(error)].filter(Boolean).join(": ")}); tried again later`,
          latencyMs: Date.now() - started,
          excerpt: null,
        };
      }
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

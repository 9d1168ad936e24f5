import { budgetRefused, errorText, type AttemptRecord } from "~/lib/delivery/attempt.server";
import { isBudgetRefusal } from "~/lib/platform/budget.server";
import type { Mailer } from "~/lib/delivery/mailer.server";
import { countOf } from "~/lib/text/count";

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
      // Not the provider's refusal but the platform's (this invocation's allowance is spent): not counted.
      if (isBudgetRefusal(error)) return budgetRefused(error, Date.now() - started);
      return {
        delivered: false,
        httpStatus: null,
        error: "rejected",
        detail: `the e-mail service refused the message to ${to}: ${errorText(error)}`,
        latencyMs: Date.now() - started,
        excerpt: null,
      };
    }
  }
  const excerpt = `sent to ${countOf(recipients.length, "recipient", "recipients")}`;
  return { delivered: true, httpStatus: null, error: null, detail: null, latencyMs: Date.now() - started, excerpt };
}

import { errorText, type AttemptRecord } from "~/lib/delivery/attempt.server";
import { countOf } from "~/lib/text/count";

// The seam between building an e-mail and sending it. In the drain Worker a Mailer wraps Cloudflare's
// send_email binding (workers/outbox-drain/index.ts, which alone imports `cloudflare:email`); tests
// pass a recording one. The Pages app has none: a Pages project cannot hold send_email (ADR 016).

/** One message for one envelope recipient, as RFC 5322 text (CRLF line ends). */
export interface OutgoingEmail {
  from: string;
  to: string;
  raw: string;
}

export interface Mailer {
  /** Resolves once the provider took the message; rejects with the provider's reason. */
  send(message: OutgoingEmail): Promise<void>;
}

/** The send_email binding's shape (Email Routing / Email Service), and the EmailMessage class from `cloudflare:email`. */
export interface SendEmailBinding {
  send(message: unknown): Promise<unknown>;
}
export type EmailMessageConstructor = new (from: string, to: string, raw: string) => unknown;

/** A Mailer over the send_email binding. */
export function bindingMailer(binding: SendEmailBinding, EmailMessage: EmailMessageConstructor): Mailer {
  return {
    async send({ from, to, raw }) {
      await binding.send(new EmailMessage(from, to, raw));
    },
  };
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
      };
    }
  }
  const excerpt = `sent to ${countOf(recipients.length, "recipient", "recipients")}`;
  return { delivered: true, httpStatus: null, error: null, detail: null, latencyMs: Date.now() - started, excerpt };
}

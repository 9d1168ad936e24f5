import type { FormDef } from "~/forms/schema";
import type { Settings } from "~/lib/settings/settings.server";
import type { StoredSubmission } from "~/lib/storage/submissions.server";
import type { AttemptRecord } from "~/lib/delivery/attempt.server";
import type { Claim } from "~/lib/storage/deliveries.server";
import { resolveDestination, submitterAddress } from "~/lib/delivery/destinations.server";
import { buildPayload, sendWebhook } from "~/lib/delivery/webhook.server";
import { sendSlack } from "~/lib/delivery/slack.server";
import { sendDiscord } from "~/lib/delivery/discord.server";
import { describeSubmission } from "~/lib/delivery/message-content.server";
import { buildNotificationEmail } from "~/lib/delivery/email.server";
import { buildConfirmationEmail, reserveConfirmation } from "~/lib/delivery/confirmation.server";
import type { Mailer } from "~/lib/delivery/mailer.server";
import { sendEmailAttempt } from "~/lib/delivery/send-email.server";
import { linkedFiles } from "~/lib/delivery/file-links.server";
import { isLang, type Lang } from "~/lib/text/languages";
import { languagesOf, localizeForm } from "~/lib/i18n/localize-form";
import { messagesOf } from "~/lib/i18n/catalogue.server";

// One attempt at one delivery, whatever its kind: resolve the destination from settings (at attempt
// time, so a fixed setting heals queued rows), build what that kind sends, and send it once.

export interface KindAttempt {
  db: D1Database;
  settings: Settings;
  form: FormDef;
  claim: Claim;
  submission: StoredSubmission;
  timeoutMs: number;
  fetch?: typeof fetch;
  /** null where no send_email binding is at hand: e-mail kinds are then held. */
  mailer: Mailer | null;
  /** When the attempt is made: the confirmation's mailbox slot is taken, and file links run, from then. */
  nowMs: number;
}

function held(detail: string): AttemptRecord {
  return { delivered: false, httpStatus: null, error: "config", detail, latencyMs: 0, excerpt: null };
}

/** Sends one delivery once. Never throws except when D1 fails (the confirmation limit). */
export async function attemptKind({
  db,
  settings,
  form,
  claim,
  submission,
  timeoutMs,
  fetch,
  mailer,
  nowMs,
}: KindAttempt): Promise<AttemptRecord> {
  const target = resolveDestination(settings, form, claim.destination);
  if (!target.ok) {
    console.error(`delivery ${claim.id} is held: ${target.reason}`);
    return held(target.reason);
  }
  const destination = target.destination;
  // The confirmation to the sender never names the files, let alone links to them.
  const files = destination.kind === "confirmation" ? [] : await linkedFiles(settings, form, submission, nowMs);
  switch (destination.kind) {
    case "webhook": {
      const body = JSON.stringify(buildPayload(submission, files));
      return sendWebhook({ url: destination.url, keys: destination.keys, webhookId: claim.id, body, timeoutMs, fetch });
    }
    case "slack":
      return sendSlack(destination.url, describeSubmission(form, submission, settings.publicUrl, files), { timeoutMs, fetch });
    case "discord":
      return sendDiscord(destination.url, describeSubmission(form, submission, settings.publicUrl, files), { timeoutMs, fetch });
    case "email": {
      if (!mailer) return held("the Worker has no send_email binding named SEND_EMAIL (docs/deploy.md)");
      const content = describeSubmission(form, submission, settings.publicUrl, files);
      const raw = buildNotificationEmail(content, destination.from, destination.to, submitterAddress(form, submission.fields));
      return sendEmailAttempt(mailer, destination.from, destination.to, raw);
    }
    case "confirmation": {
      if (!mailer) return held("the Worker has no send_email binding named SEND_EMAIL (docs/deploy.md)");
      const to = submitterAddress(form, submission.fields);
      if (!to) return skipped("the sender's address is missing or not a valid e-mail address");
      const slot = await reserveConfirmation(db, form.id, to, claim.id, nowMs);
      if (slot === "limited") return skipped("this address already got a confirmation from this form in the last 24 h");
      // At most once (ADR 065): an earlier attempt began sending and never said how it went.
      if (slot === "replayed") return skipped("an earlier attempt began sending it and the Worker stopped before it was recorded");
      // The sender's own language, which the form may have stopped offering since: then its own.
      const lang: Lang = isLang(submission.lang) && languagesOf(form).includes(submission.lang) ? submission.lang : languagesOf(form)[0]!;
      const shown = localizeForm(form, lang);
      const own = shown.destinations.find((d) => d.kind === "confirmation");
      const raw = buildConfirmationEmail({
        from: destination.from,
        to,
        formTitle: shown.title,
        subject: own?.subject ?? destination.subject,
        text: own?.text ?? destination.text,
        submissionId: submission.id,
        lang,
        reference: messagesOf(lang).email.reference,
      });
      const sent = await sendEmailAttempt(mailer, destination.from, [to], raw);
      // An address the e-mail service will never take (Email Routing reaches verified addresses only):
      // settled as not sent, with the reason, rather than asked again for 44 h.
      return sent.recipientRefused ? skipped(sent.detail ?? "the e-mail service refused this address") : sent;
    }
  }
}

function skipped(detail: string): AttemptRecord {
  return { delivered: true, httpStatus: null, error: "skipped", detail: `not sent: ${detail}`, latencyMs: 0, excerpt: null };
}

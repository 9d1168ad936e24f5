import escapeHtml from "escape-html";
import type { Destination } from "~/lib/destinations/registry";
import { buildMime, type EmailParts } from "~/lib/sending/mime.server";
import { emailTransport } from "~/lib/destinations/email/transport.server";
import { defineSender, held, NO_EMAIL_FROM, skipped, type ResolvedDestination } from "~/lib/destinations/sender.server";
import { sendEmailAttempt } from "~/lib/sending/send-email.server";
import { confirmationField, submitterAddress } from "~/lib/sending/submitter-address.server";
import { CONFIRMATION_NEEDS, isConfirmationOn } from "~/lib/destinations/confirmation/spec";
import { isLang } from "~/lib/text/languages";
import { languagesOf, localizeForm } from "~/lib/i18n/localize-form";
import { messagesOf } from "~/lib/i18n/catalogue.server";
import { CONFIRMATION_WINDOW_MS, confirmationGate, confirmationKey } from "~/lib/destinations/confirmation/limits.server";
import { reserveConfirmationSlot, staleConfirmationLimits, type SlotVerdict } from "~/lib/storage/confirmation-limits.server";
import { textDirection, type Lang } from "~/lib/text/languages";
import { fill, type Message } from "~/lib/text/fill";
import { en } from "~/lib/i18n/messages/en";

type ConfirmationDestination = Extract<Destination, { kind: "confirmation" }>;

// The opt-in confirmation to the sender (ADR 017): only after Turnstile, only to a valid address, only the owner's
// fixed text and the reference, never the sender's words. How many go out is decided in the accept batch (ADR 025).

/** The owner's subject and text and the reference, nothing submitted; its frame in the sender's language. */
export interface ConfirmationInput {
  from: string;
  to: string;
  formTitle: string;
  subject: string;
  text: string;
  submissionId: string;
  lang?: Lang;
  reference?: Message;
}

export function buildConfirmationEmail(input: ConfirmationInput): string {
  return buildMime(confirmationParts(input));
}

/** The parts the confirmation's MIME text is built from (an HTTP provider sends these). */
export function confirmationParts(input: ConfirmationInput): EmailParts {
  const lang = input.lang ?? "en";
  const reference = fill(input.reference ?? en.email.reference, { id: input.submissionId }, lang);
  const paragraphs = input.text.split(/\n{2,}/).map((p) => `<p>${escapeHtml(p).replaceAll("\n", "<br>")}</p>`);
  return {
    from: input.from,
    to: [input.to],
    replyTo: null,
    senderName: input.formTitle,
    subject: input.subject,
    text: `${input.text}\n\n${reference}\n`,
    html: `<!doctype html><html lang="${lang}" dir="${textDirection(lang)}"><body style="font-family:sans-serif;line-height:1.4">${paragraphs.join("")}<p style="color:#555">${escapeHtml(reference)}</p></body></html>`,
    // RFC 3834: an automatic answer, so auto-responders on the other side do not answer it back.
    headers: { "Auto-Submitted": "auto-replied" },
  };
}

/** Takes the mailbox's one confirmation for 24 h: "reserved" when this pending delivery may send (SlotVerdict). D1 errors throw. */
export async function reserveConfirmation(
  db: D1Database,
  formId: string,
  address: string,
  deliveryId: string,
  nowMs: number,
): Promise<SlotVerdict> {
  const mailboxKey = await confirmationKey(formId, address);
  return reserveConfirmationSlot(db, { formId, mailboxKey, deliveryId, nowMs, windowMs: CONFIRMATION_WINDOW_MS });
}

export const sender = defineSender<ResolvedDestination & { from: string; field: string; subject: string; text: string }>({
  kind: "confirmation",
  applies: (form) => confirmationField(form) !== undefined,
  gate: confirmationGate,
  stale: (nowMs) => staleConfirmationLimits(nowMs, CONFIRMATION_WINDOW_MS),
  resolve({ settings, form, destination, own, name, variable }) {
    if (!isConfirmationOn(own.CONFIRMATION)) return { ok: false, reason: `${variable("CONFIRMATION")} is not "on"` };
    if (!settings.emailFrom) return { ok: false, reason: NO_EMAIL_FROM };
    const field = confirmationField(form);
    if (!field) return { ok: false, reason: `form ${form.id} has no e-mail field to confirm to` };
    const { subject, text } = destination as ConfirmationDestination;
    return { ok: true, destination: { kind: "confirmation", name, from: settings.emailFrom, field: field.name, subject, text } };
  },
  async attempt(destination, { db, settings, form, claim, submission, nowMs, mailer, fetch }) {
    const transport = emailTransport(settings, form, mailer, fetch);
    if (!transport.ok) return held(transport.reason);
    const to = submitterAddress(form, submission.fields);
    if (!to) return skipped("the sender's address is missing or not a valid e-mail address");
    const slot = await reserveConfirmation(db, form.id, to, claim.id, nowMs);
    if (slot === "limited") return skipped("this address already got a confirmation from this form in the last 24 h");
    // At most once (ADR 065): an earlier attempt began sending and never said how it went.
    if (slot === "replayed") return skipped("an earlier attempt began sending it and the Worker stopped before it was recorded");
    // The sender's own language, unless the form stopped offering it.
    const lang: Lang = isLang(submission.lang) && languagesOf(form).includes(submission.lang) ? submission.lang : languagesOf(form)[0]!;
    const shown = localizeForm(form, lang);
    const own = shown.destinations.find((d): d is ConfirmationDestination => d.kind === destination.kind);
    const parts = confirmationParts({
      from: destination.from,
      to,
      formTitle: shown.title,
      subject: own?.subject ?? destination.subject,
      text: own?.text ?? destination.text,
      submissionId: submission.id,
      lang,
      reference: messagesOf(lang).email.reference,
    });
    const sent = await sendEmailAttempt(transport.mailer, destination.from, [to], buildMime(parts), parts);
    // An address the e-mail service will never take is settled as not sent rather than asked again for 44 h (ADR 091).
    if (sent.recipientRefused) return skipped(`${sent.detail ?? "the e-mail service refused this address"}. ${CONFIRMATION_NEEDS}`);
    return sent.error === "rate_limited" ? { ...sent, detail: `${sent.detail}. ${CONFIRMATION_NEEDS}` } : sent;
  },
});

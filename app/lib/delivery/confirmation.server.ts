import { buildMime, escapeHtml } from "~/lib/delivery/email.server";
import { foldMailbox } from "~/lib/delivery/mailbox.server";

// The opt-in confirmation to the sender (docs/decisions/017-notification-kinds.md). Anyone can type
// any address into a form, so this e-mail is built to be useless for abuse: it is queued only after
// Turnstile passed (the outbox is written after verification), goes only to an address that passed the
// e-mail check, and says only the owner's fixed text and the reference: nothing the sender typed, so
// no one can relay their words into a stranger's inbox. How many go out (once per mailbox per 24 h
// per form, a few per network and a cap per site an hour) is decided in the accept batch
// (confirmation-limits.server.ts, docs/decisions/025); the drain takes the mailbox's slot once more
// before sending, which holds the promise for rows the accept batch did not limit (a release from
// quarantine, a redelivered dead one).

export const CONFIRMATION_WINDOW_MS = 24 * 3_600_000;

/** The confirmation's MIME text: the owner's subject and text, the reference, nothing submitted. */
export function buildConfirmationEmail(input: {
  from: string;
  to: string;
  formTitle: string;
  subject: string;
  text: string;
  submissionId: string;
}): string {
  const reference = `Reference: ${input.submissionId}`;
  const paragraphs = input.text.split(/\n{2,}/).map((p) => `<p>${escapeHtml(p).replaceAll("\n", "<br>")}</p>`);
  return buildMime({
    from: input.from,
    to: [input.to],
    replyTo: null,
    senderName: input.formTitle,
    subject: input.subject,
    text: `${input.text}\n\n${reference}\n`,
    html: `<!doctype html><html><body style="font-family:sans-serif;line-height:1.4">${paragraphs.join("")}<p style="color:#555">${escapeHtml(reference)}</p></body></html>`,
    // RFC 3834: an automatic answer, so auto-responders on the other side do not answer it back.
    headers: { "Auto-Submitted": "auto-replied" },
  });
}

/** SHA-256 of form and folded mailbox (mailbox.server.ts): the limit table never holds the address itself. */
export async function confirmationKey(formId: string, address: string): Promise<string> {
  const mailbox = foldMailbox(address) ?? address.toLowerCase();
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`gatepost-confirmation:${formId}:${mailbox}`));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Takes the mailbox's one confirmation for the next 24 h, for delivery `deliveryId`, in one atomic
 * upsert: true if this delivery may send (no other in the window, or a retry of the same delivery),
 * and only while the delivery is still pending (one settled at accept time as skipped never sends).
 * D1 errors throw (the drain logs them and the delivery is tried again).
 */
export async function reserveConfirmation(
  db: D1Database,
  formId: string,
  address: string,
  deliveryId: string,
  nowMs: number,
): Promise<boolean> {
  const key = await confirmationKey(formId, address);
  const row = await db
    .prepare(
      `INSERT INTO confirmation_limits (form_id, address_key, delivery_id, sent_at)
       SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM deliveries WHERE id = ?3 AND status = 'pending')
       ON CONFLICT (form_id, address_key) DO UPDATE SET delivery_id = excluded.delivery_id, sent_at = excluded.sent_at
       WHERE confirmation_limits.sent_at <= ?5 OR confirmation_limits.delivery_id = excluded.delivery_id
       RETURNING delivery_id`,
    )
    .bind(formId, key, deliveryId, nowMs, nowMs - CONFIRMATION_WINDOW_MS)
    .first<{ delivery_id: string }>();
  return row?.delivery_id === deliveryId;
}

/** Forgets limits older than the window (the maintenance Worker runs it). Returns rows removed. */
export async function pruneConfirmationLimits(db: D1Database, nowMs: number): Promise<number> {
  const result = await db
    .prepare("DELETE FROM confirmation_limits WHERE sent_at <= ?1")
    .bind(nowMs - CONFIRMATION_WINDOW_MS)
    .run();
  return result.meta.changes ?? 0;
}

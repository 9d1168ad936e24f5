import escapeHtml from "escape-html";
import type { FormDef } from "~/forms/schema";
import type { Settings } from "~/lib/settings/settings.server";
import { SENDERS } from "~/lib/destinations/senders.server";
import { buildMime, type EmailParts } from "~/lib/sending/mime.server";
import type { Mailer } from "~/lib/sending/mailer.server";
import { sendEmailAttempt } from "~/lib/sending/send-email.server";
import { PAUSE_AFTER_FAILURES, PROBE_INTERVAL_MS } from "~/lib/delivery/settle.server";
import type { InvocationBudget } from "~/lib/platform/budget.server";
import { claimPauseNotice, type DestinationHealth } from "~/lib/storage/destination-health.server";

// The owner hears of a pause once (ADR 071): the first settle that sees it untold claims the notice in D1 before
// sending, so two drainers never both send it; a failed send is logged, not retried.

/** What telling the owner of one pause costs: the claim, and the e-mail. */
export const NOTICE_COST = { d1Queries: 1, subrequests: 1 } as const;

/** Tells the owner of `health`'s pause when it is paused and untold, and the budget allows. Never throws. */
export async function tellOwnerOfPause(
  db: D1Database,
  settings: Settings,
  form: FormDef | undefined,
  health: DestinationHealth | null,
  { mailer, nowMs, budget }: { mailer: Mailer | null; nowMs: number; budget?: InvocationBudget },
): Promise<boolean> {
  if (!health || health.pausedAt === null || health.notifiedAt !== null || !form) return false;
  // The kind that reaches the owner (their notification e-mail) carries it, unless it is what paused.
  const sender = SENDERS.find((candidate) => candidate.ownerMail);
  if (!sender?.ownerMail || health.destination === sender.kind) return false;
  const owner = sender.ownerMail(settings, form, mailer);
  if (!owner) return false;
  if (budget && !budget.trySpend(NOTICE_COST)) return false;
  const { from, to } = owner;
  try {
    if (!(await claimPauseNotice(db, form.id, health.destination, nowMs))) return false;
    const parts = pauseNoticeParts(settings, form, health, from, to);
    const sent = await sendEmailAttempt(owner.mailer, from, to, buildMime(parts), parts);
    if (!sent.delivered) console.error(`the pause notice for ${form.id}/${health.destination} was not sent: ${sent.detail}`);
    return sent.delivered;
  } catch (error) {
    console.error(`the pause notice for ${form.id}/${health.destination} was not sent:`, error);
    return false;
  }
}

/** The notice (which destination, why, what happens now, where to resume it) as the parts of its MIME text (ADR 092). */
export function pauseNoticeParts(
  settings: Settings,
  form: FormDef,
  health: DestinationHealth,
  from: string,
  to: readonly string[],
): EmailParts {
  const where = `${form.title}'s ${health.destination}`;
  const page = settings.publicUrl ? `${settings.publicUrl}/admin/forms/${encodeURIComponent(form.id)}/destinations` : null;
  const lines = [
    `Gatepost paused deliveries to ${where} after ${PAUSE_AFTER_FAILURES} failed attempts in a row.`,
    "",
    `Last error: ${health.lastError ?? "unknown"}`,
    "",
    "Nothing is lost: new and waiting deliveries stay queued without using up their retries.",
    `Gatepost tries one of them every ${PROBE_INTERVAL_MS / 60_000} minutes and resumes on its own as soon as the receiver answers.`,
    page
      ? `You can also resume it by hand in the console: ${page}`
      : "You can also resume it by hand in the console, under the form's Destinations.",
    "",
  ];
  const html = `<!doctype html><html><body style="font-family:sans-serif;line-height:1.4">${lines
    .filter(Boolean)
    .map((line) => `<p>${escapeHtml(line)}</p>`)
    .join("")}</body></html>`;
  return {
    from,
    to,
    replyTo: null,
    senderName: "Gatepost",
    subject: `Deliveries paused: ${where}`,
    text: lines.join("\n"),
    html,
    headers: { "Auto-Submitted": "auto-generated" },
  };
}

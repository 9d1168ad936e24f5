import { buildMime } from "~/lib/sending/mime.server";
import type { Mailer } from "~/lib/sending/mailer.server";
import escapeHtml from "escape-html";

// The invitation e-mail: Gatepost's own words and the link, built by mimetext like every e-mail. The
// link is also shown to the admin who invited, so a mail that does not arrive loses nothing.

/** Sends one invitation; false when the mailer refused (the admin copies the link instead). Never throws. */
export async function sendInvitation(
  mailer: Mailer,
  invitation: { from: string; to: string; inviteUrl: string; role: string; inviter: string },
): Promise<boolean> {
  const inviter = invitation.inviter.replace(/^(person|access):/, "");
  const lines = [
    `${inviter} invited you to the Gatepost console as ${invitation.role}.`,
    "Follow this link within a day to choose your password or register a passkey:",
    invitation.inviteUrl,
  ];
  try {
    const raw = buildMime({
      from: invitation.from,
      to: [invitation.to],
      replyTo: null,
      senderName: "Gatepost",
      subject: "Your invitation to the Gatepost console",
      text: lines.join("\n\n"),
      html: `<p>${escapeHtml(lines[0])}</p><p>${escapeHtml(lines[1])}</p><p><a href="${escapeHtml(lines[2])}">${escapeHtml(lines[2])}</a></p>`,
    });
    await mailer.send({ from: invitation.from, to: invitation.to, raw });
    return true;
  } catch (error) {
    console.warn("the invitation e-mail was not sent:", error instanceof Error ? error.message : String(error));
    return false;
  }
}

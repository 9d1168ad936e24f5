import escapeHtml from "escape-html";
import { buildMime, type EmailParts } from "~/lib/sending/mime.server";
import { parseEmailList } from "~/lib/destinations/checks";
import { linkedFiles } from "~/lib/sending/linked-files.server";
import { emailTransport } from "~/lib/destinations/email/transport.server";
import {
  defineSender,
  held,
  NO_EMAIL_FROM,
  settingVariable,
  type Resolved,
  type ResolvedDestination,
  type ResolveInput,
} from "~/lib/destinations/sender.server";
import { describeSubmission, type MessageContent } from "~/lib/sending/message-content.server";
import { sendEmailAttempt } from "~/lib/sending/send-email.server";
import { submitterAddress } from "~/lib/sending/submitter-address.server";

// The owner's notification e-mail: a submitter reaches only Reply-To, as a checked address; HTML escapes every value.

function expiry(expiresAt: string): string {
  return expiresAt.replace("T", " ").replace(/:\d\d\.\d+Z$|:\d\dZ$/, " UTC");
}

function filesText(content: MessageContent): string[] {
  if (content.files.length === 0) return [];
  const lines = content.files.map((f) => `- ${f.label}: ${f.name} (${f.size})${f.url ? `\n  ${f.url}` : " (download it in the console)"}`);
  const until = content.files.find((f) => f.expiresAt)?.expiresAt;
  return [
    "Files:",
    ...lines,
    ...(until ? [`The file links work until ${expiry(until)}; the console keeps the files after that.`] : []),
    "",
  ];
}

/** Plain text: "Label: value" lines in the form's order, the files, then the reference and the link. */
export function notificationText(content: MessageContent): string {
  const rows = content.rows.map((row) => `${row.label}:\n${row.value}\n`);
  const footer = [`Reference: ${content.submissionId}`, `Received: ${content.receivedAt}`];
  if (content.link) footer.push(`Open it in Gatepost: ${content.link}`);
  return [`New submission to "${content.formTitle}"`, "", ...rows, ...filesText(content), ...footer, ""].join("\n");
}

function filesHtml(content: MessageContent): string {
  if (content.files.length === 0) return "";
  const items = content.files
    .map((f) => {
      const name = escapeHtml(f.name);
      const link = f.url ? `<a href="${escapeHtml(f.url)}">${name}</a>` : `${name} (download it in the console)`;
      return `<li>${escapeHtml(f.label)}: ${link} (${escapeHtml(f.size)})</li>`;
    })
    .join("");
  const until = content.files.find((f) => f.expiresAt)?.expiresAt;
  const note = until
    ? `<p style="color:#555">The file links work until ${escapeHtml(expiry(until))}; the console keeps the files after that.</p>`
    : "";
  return `<h2 style="font-size:16px">Files</h2><ul>${items}</ul>${note}`;
}

/** The HTML part: a table of the fields, every value escaped, line breaks kept. */
export function notificationHtml(content: MessageContent): string {
  const cell = (value: string) => escapeHtml(value).replaceAll("\n", "<br>");
  const rows = content.rows
    .map(
      (row) =>
        `<tr><th align="left" valign="top" style="padding:4px 12px 4px 0">${escapeHtml(row.label)}</th><td style="padding:4px 0">${cell(row.value)}</td></tr>`,
    )
    .join("");
  const link = content.link ? `<p><a href="${escapeHtml(content.link)}">Open this submission in Gatepost</a></p>` : "";
  return `<!doctype html><html><body style="font-family:sans-serif;line-height:1.4"><h1 style="font-size:18px">New submission to ${escapeHtml(content.formTitle)}</h1><table role="presentation">${rows}</table>${filesHtml(content)}<p style="color:#555">Reference <code>${escapeHtml(content.submissionId)}</code>, received ${escapeHtml(content.receivedAt)}</p>${link}</body></html>`;
}

/** The owner's notification for one submission. `replyTo` must be the submitter's checked address or null. */
export function buildNotificationEmail(content: MessageContent, from: string, to: readonly string[], replyTo: string | null): string {
  return buildMime(notificationParts(content, from, to, replyTo));
}

/** The parts the notification's MIME text is built from (an HTTP provider sends these). */
export function notificationParts(content: MessageContent, from: string, to: readonly string[], replyTo: string | null): EmailParts {
  return {
    from,
    to,
    replyTo,
    senderName: `${content.formTitle} (Gatepost)`,
    subject: `New submission: ${content.formTitle}`,
    text: notificationText(content),
    html: notificationHtml(content),
    headers: { "Auto-Submitted": "auto-generated", "X-Gatepost-Submission": content.submissionId },
  };
}

type OwnerMail = ResolvedDestination & { from: string; to: string[] };

function resolveOwner({ settings, own, name, variable }: ResolveInput): Resolved<OwnerMail> {
  if (!settings.emailFrom) return { ok: false, reason: NO_EMAIL_FROM };
  const to = parseEmailList(own.EMAIL_TO);
  if (!to) return { ok: false, reason: `${variable("EMAIL_TO")} must be one or more e-mail addresses` };
  return { ok: true, destination: { kind: "email", name, from: settings.emailFrom, to } };
}

/** The owner e-mail kind's sending half (its settings: spec.ts). */
export const sender = defineSender<OwnerMail>({
  kind: "email",
  resolve: resolveOwner,
  async attempt(destination, { settings, form, submission, nowMs, mailer, fetch }) {
    const transport = emailTransport(settings, form, mailer, fetch);
    if (!transport.ok) return held(transport.reason);
    const files = await linkedFiles(settings, form, submission, nowMs);
    const content = describeSubmission(form, submission, settings.publicUrl, files);
    const parts = notificationParts(content, destination.from, destination.to, submitterAddress(form, submission.fields));
    return sendEmailAttempt(transport.mailer, destination.from, destination.to, buildMime(parts), parts);
  },
  // The owner's addresses carry news about the form itself (a pause, ADR 071) while this kind is on and sound.
  ownerMail(settings, form, binding) {
    const destination = form.destinations.find((d) => d.kind === "email");
    const transport = emailTransport(settings, form, binding);
    if (!destination || !transport.ok) return null;
    const owner = resolveOwner({
      settings,
      form,
      destination,
      name: destination.kind,
      own: settings.form(form.id),
      variable: settingVariable(form.id),
    });
    return owner.ok ? { from: owner.destination.from, to: owner.destination.to, mailer: transport.mailer } : null;
  },
});

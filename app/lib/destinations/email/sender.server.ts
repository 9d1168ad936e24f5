import escapeHtml from "escape-html";
import { createMimeMessage, Mailbox } from "mimetext/browser";
import { encodeBase64 } from "~/lib/crypto/base64";
import { isEmailAddress, parseEmailList } from "~/lib/destinations/checks";
import { linkedFiles } from "~/lib/sending/file-links.server";
import type { FormDef } from "~/forms/schema";
import { emailTransport } from "~/lib/sending/email-provider.server";
import { defineSender, held, NO_EMAIL_FROM, settingVariable, type ResolvedDestination } from "~/lib/destinations/sender.server";
import type { Settings } from "~/lib/settings/settings.server";
import { describeSubmission, type MessageContent } from "~/lib/sending/message-content.server";
import { sendEmailAttempt } from "~/lib/sending/send-email.server";
import { submitterAddress } from "~/lib/sending/submitter-address.server";

// The owner's notification e-mail, built by mimetext, never by joining strings. The only header a
// submitter can reach is Reply-To, and only as a checked address; both bodies are base64, so submitted
// text can neither end the headers nor forge a boundary, and the HTML part escapes every value.

export interface EmailParts {
  from: string;
  to: readonly string[];
  replyTo: string | null;
  subject: string;
  text: string;
  html: string;
  /** Extra fixed headers (names and values are Gatepost's own, never submitted text). */
  headers?: Readonly<Record<string, string>>;
  senderName: string;
}

/** One line for headers built from Gatepost's own text: control characters become spaces. */
export function headerText(text: string, max = 120): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is this pattern's job
  const line = text.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** UTF-8 then base64 in 76-character lines (RFC 2045). */
function base64Lines(text: string): string {
  return (encodeBase64(new TextEncoder().encode(text)).match(/.{1,76}/g) ?? []).join("\r\n");
}

/** RFC 5322 text with a plain-text and an HTML part. Throws only on a bug (an address not checked first). */
export function buildMime(parts: EmailParts): string {
  for (const address of [parts.from, ...parts.to, ...(parts.replyTo ? [parts.replyTo] : [])]) {
    if (!isEmailAddress(address)) throw new Error("buildMime got an unchecked address");
  }
  const message = createMimeMessage();
  message.setSender({ name: headerText(parts.senderName, 60), addr: parts.from });
  message.setTo(parts.to.map((addr) => ({ addr })));
  if (parts.replyTo) message.setHeader("Reply-To", new Mailbox({ addr: parts.replyTo }));
  message.setSubject(headerText(parts.subject));
  for (const [name, value] of Object.entries(parts.headers ?? {})) message.setHeader(name, headerText(value, 200));
  message.addMessage({ contentType: "text/plain", charset: "UTF-8", encoding: "base64", data: base64Lines(parts.text) });
  message.addMessage({ contentType: "text/html", charset: "UTF-8", encoding: "base64", data: base64Lines(parts.html) });
  return message.asRaw();
}

/** When a file link stops working, as the notification says it. */
function expiry(expiresAt: string): string {
  return expiresAt.replace("T", " ").replace(/:\d\d\.\d+Z$|:\d\dZ$/, " UTC");
}

/** The files block of the plain text: each name, size and link (never the bytes). */
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
  const rows = content.rows.map((row) => `${row.label}:\n${row.value === "" ? "—" : row.value}\n`);
  const footer = [`Reference: ${content.submissionId}`, `Received: ${content.receivedAt}`];
  if (content.link) footer.push(`Open it in Gatepost: ${content.link}`);
  return [`New submission to "${content.formTitle}"`, "", ...rows, ...filesText(content), ...footer, ""].join("\n");
}

/** The files block of the HTML part: a list of links, every name escaped. */
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
  const cell = (value: string) => (value === "" ? "—" : escapeHtml(value).replaceAll("\n", "<br>"));
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

/** The owner e-mail kind's sending half (its settings: app/lib/settings/kinds/email.ts). */
export const emailSender = defineSender<ResolvedDestination & { from: string; to: string[] }>({
  kind: "email",
  resolve({ settings, own, name, variable }) {
    if (!settings.emailFrom) return { ok: false, reason: NO_EMAIL_FROM };
    const to = parseEmailList(own.EMAIL_TO);
    if (!to) return { ok: false, reason: `${variable("EMAIL_TO")} must be one or more e-mail addresses` };
    return { ok: true, destination: { kind: "email", name, from: settings.emailFrom, to } };
  },
  async attempt(destination, { settings, form, submission, nowMs, mailer, fetch }) {
    const transport = emailTransport(settings, form, mailer, fetch);
    if (!transport.ok) return held(transport.reason);
    const files = await linkedFiles(settings, form, submission, nowMs);
    const content = describeSubmission(form, submission, settings.publicUrl, files);
    const parts = notificationParts(content, destination.from, destination.to, submitterAddress(form, submission.fields));
    return sendEmailAttempt(transport.mailer, destination.from, destination.to, buildMime(parts), parts);
  },
});

/** The owner's sender and addresses for news about the form itself (a pause, ADR 071); null when its owner e-mail is off or broken. */
export function ownerMailbox(settings: Settings, form: FormDef): { from: string; to: string[] } | null {
  const destination = form.destinations.find((d) => d.kind === emailSender.kind);
  if (!destination) return null;
  const own = settings.form(form.id);
  const resolved = emailSender.resolve({ settings, form, destination, name: destination.kind, own, variable: settingVariable(form.id) });
  return resolved.ok ? (resolved.destination as unknown as { from: string; to: string[] }) : null;
}

import { createMimeMessage, Mailbox } from "mimetext/browser";
import { encodeBase64 } from "~/lib/crypto/base64";
import { isEmailAddress } from "~/lib/destinations/checks";

// Every e-mail as RFC 5322 text built by mimetext: both bodies base64, so submitted text cannot end the headers.

export interface EmailParts {
  from: string;
  to: readonly string[];
  replyTo: string | null;
  subject: string;
  text: string;
  html: string;
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

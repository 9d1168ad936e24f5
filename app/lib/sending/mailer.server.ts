// The seam between building an e-mail and sending it (send_email in the Worker, a recording one in tests). No
// `~/` imports: load-context.ts, which Vite's config also loads, imports this file.

/** What the MIME text was built from: an HTTP provider sends these (the same headers, text and HTML). */
export interface OutgoingParts {
  senderName: string;
  replyTo: string | null;
  subject: string;
  text: string;
  html: string;
  headers?: Readonly<Record<string, string>>;
}

/** One message for one envelope recipient, as RFC 5322 text (CRLF line ends), and its parts. */
export interface OutgoingEmail {
  from: string;
  to: string;
  raw: string;
  parts?: OutgoingParts;
}

export interface Mailer {
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

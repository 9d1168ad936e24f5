import type { Mailer, OutgoingEmail } from "~/lib/sending/mailer.server";
import { readMessageUpTo } from "~/lib/http/read-stream.server";
import type { EmailProvider } from "~/lib/destinations/email-providers";

// E-mail through Resend or Postmark instead of send_email (ADR 092, 097): the same message as the provider's
// JSON, a refusal thrown with send_email's code so one classifier (send-email.server.ts) decides what is retried.

const API: Record<EmailProvider, { base: string; path: string }> = {
  resend: { base: "https://api.resend.com", path: "/emails" },
  postmark: { base: "https://api.postmarkapp.com", path: "/email" },
};
const TIMEOUT_MS = 10_000;

/** A provider's refusal, with the code send_email gives the same case (or E_PROVIDER_* for its own). */
export class ProviderRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ProviderRefusal";
  }
}

function mailbox(name: string, address: string): string {
  return `"${name.replace(/["\\\r\n]/g, " ")}" <${address}>`;
}

/** The provider's JSON body for one message to one recipient. */
export function providerBody(provider: EmailProvider, { from, to, parts }: OutgoingEmail): Record<string, unknown> {
  if (!parts) throw new Error("an HTTP e-mail provider needs the message's parts, not only its MIME text");
  const sender = mailbox(parts.senderName, from);
  const headers = parts.headers ?? {};
  if (provider === "resend") {
    return {
      from: sender,
      to: [to],
      subject: parts.subject,
      text: parts.text,
      html: parts.html,
      ...(parts.replyTo ? { reply_to: parts.replyTo } : {}),
      headers,
    };
  }
  return {
    From: sender,
    To: to,
    Subject: parts.subject,
    TextBody: parts.text,
    HtmlBody: parts.html,
    ...(parts.replyTo ? { ReplyTo: parts.replyTo } : {}),
    Headers: Object.entries(headers).map(([Name, Value]) => ({ Name, Value })),
    MessageStream: "outbound",
  };
}

/** What a provider's error answer means, as send_email's codes. */
export function classifyProviderAnswer(provider: EmailProvider, status: number, body: string): ProviderRefusal {
  const said = body.slice(0, 300);
  if (status === 429) return new ProviderRefusal("E_RATE_LIMIT_EXCEEDED", `${provider} answered 429 (rate limited): ${said}`);
  if (status === 401 || status === 403)
    return new ProviderRefusal("E_PROVIDER_AUTH", `${provider} refused the API key (HTTP ${status}): ${said}`);
  let code: unknown;
  try {
    code =
      provider === "postmark" ? (JSON.parse(body) as { ErrorCode?: unknown }).ErrorCode : (JSON.parse(body) as { name?: unknown }).name;
  } catch {
    code = undefined;
  }
  // Postmark 406: the recipient is inactive (bounced, unsubscribed, marked spam); 300 an invalid address.
  if (provider === "postmark" && (code === 406 || code === 300)) {
    return new ProviderRefusal("E_RECIPIENT_SUPPRESSED", `postmark refused the recipient (ErrorCode ${code}): ${said}`);
  }
  if (provider === "postmark" && code === 10) return new ProviderRefusal("E_PROVIDER_AUTH", `postmark refused the API key: ${said}`);
  if (provider === "resend" && code === "daily_quota_exceeded") return new ProviderRefusal("E_DAILY_LIMIT_EXCEEDED", `resend: ${said}`);
  if (provider === "resend" && (code === "invalid_api_key" || code === "restricted_api_key")) {
    return new ProviderRefusal("E_PROVIDER_AUTH", `resend refused the API key: ${said}`);
  }
  return new ProviderRefusal(
    status >= 500 ? "E_PROVIDER_UNAVAILABLE" : "E_PROVIDER_REFUSED",
    `${provider} answered HTTP ${status}: ${said}`,
  );
}

/** A Mailer over a provider's HTTP API. Rejects with a ProviderRefusal, or the network's error. */
export function providerMailer(provider: EmailProvider, apiKey: string, options: { baseUrl?: string; fetch?: typeof fetch } = {}): Mailer {
  const { base, path } = API[provider];
  const url = `${(options.baseUrl || base).replace(/\/$/, "")}${path}`;
  const auth: Record<string, string> =
    provider === "resend" ? { authorization: `Bearer ${apiKey}` } : { "x-postmark-server-token": apiKey };
  const doFetch = options.fetch ?? fetch;
  return {
    async send(message) {
      const response = await doFetch(url, {
        method: "POST",
        redirect: "manual",
        signal: AbortSignal.timeout(TIMEOUT_MS),
        headers: { "content-type": "application/json", accept: "application/json", ...auth },
        body: JSON.stringify(providerBody(provider, message)),
      });
      const read = response.body ? await readMessageUpTo(response, 1024) : null;
      const text = read ? new TextDecoder().decode(read.bytes.subarray(0, 1024)) : "";
      if (response.status < 200 || response.status >= 300) throw classifyProviderAnswer(provider, response.status, text);
    },
  };
}

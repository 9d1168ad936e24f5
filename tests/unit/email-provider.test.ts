import { describe, expect, it } from "vitest";
import type { FormDef } from "~/forms/schema";
import { emailTransport } from "~/lib/destinations/email/transport.server";
import { classifyProviderAnswer, providerBody, providerMailer } from "~/lib/sending/email-provider.server";
import type { Mailer } from "~/lib/sending/mailer.server";
import { parseSettings } from "~/lib/settings/settings.server";
import { notificationParts } from "~/lib/destinations/email/sender.server";
import { buildMime } from "~/lib/sending/mime.server";
import { isLimitRefusal, isRecipientRefusal } from "~/lib/sending/send-email.server";

// The HTTP providers get the parts the MIME text is built from: the same subject, headers, text and HTML.

const content = {
  formId: "contact",
  formTitle: "Contact",
  submissionId: "11111111-2222-4333-8444-555555555555",
  receivedAt: "2026-11-26T20:00:00Z",
  link: null,
  rows: [{ label: "Message", value: "<b>hi</b>" }],
  files: [],
};

describe("an HTTP e-mail provider's message", () => {
  const parts = notificationParts(content as never, "forms@example.org", ["owner@example.org"], "grace@example.org");
  const outgoing = { from: "forms@example.org", to: "owner@example.org", raw: buildMime(parts), parts };

  it("is the MIME text's parts as Resend's JSON", () => {
    expect(providerBody("resend", outgoing)).toEqual({
      from: '"Contact (Gatepost)" <forms@example.org>',
      to: ["owner@example.org"],
      subject: "New submission: Contact",
      text: parts.text,
      html: parts.html,
      reply_to: "grace@example.org",
      headers: { "Auto-Submitted": "auto-generated", "X-Gatepost-Submission": content.submissionId },
    });
  });

  it("is the same as Postmark's JSON, its headers as a list", () => {
    expect(providerBody("postmark", outgoing)).toMatchObject({
      To: "owner@example.org",
      Subject: "New submission: Contact",
      TextBody: parts.text,
      HtmlBody: parts.html,
      ReplyTo: "grace@example.org",
      Headers: [
        { Name: "Auto-Submitted", Value: "auto-generated" },
        { Name: "X-Gatepost-Submission", Value: content.submissionId },
      ],
      MessageStream: "outbound",
    });
  });

  it("classifies refusals with send_email's codes", () => {
    expect(isLimitRefusal(classifyProviderAnswer("resend", 429, "{}"))).toBe(true);
    expect(isLimitRefusal(classifyProviderAnswer("resend", 429, '{"name":"daily_quota_exceeded"}'))).toBe(true);
    expect(isRecipientRefusal(classifyProviderAnswer("postmark", 422, '{"ErrorCode":406}'))).toBe(true);
    expect(classifyProviderAnswer("postmark", 422, '{"ErrorCode":10}').code).toBe("E_PROVIDER_AUTH");
    expect(classifyProviderAnswer("resend", 401, "").code).toBe("E_PROVIDER_AUTH");
    expect(classifyProviderAnswer("resend", 503, "").code).toBe("E_PROVIDER_UNAVAILABLE");
    expect(isRecipientRefusal(classifyProviderAnswer("resend", 422, '{"name":"validation_error"}'))).toBe(false);
  });

  it("posts with the provider's own authentication and rejects on a refusal", async () => {
    const calls: { url: string; headers: Headers }[] = [];
    const answer = (status: number) => async (url: string | URL | Request, init?: RequestInit) => {
      calls.push({ url: String(url), headers: new Headers(init?.headers) });
      return new Response("{}", { status });
    };
    await providerMailer("resend", "re_key_123456", { fetch: answer(200) as typeof fetch }).send(outgoing);
    await providerMailer("postmark", "pm-token-1234", { baseUrl: "http://127.0.0.1:9/pm", fetch: answer(200) as typeof fetch }).send(
      outgoing,
    );
    expect(calls.map((c) => c.url)).toEqual(["https://api.resend.com/emails", "http://127.0.0.1:9/pm/email"]);
    expect(calls[0].headers.get("authorization")).toBe("Bearer re_key_123456");
    expect(calls[1].headers.get("x-postmark-server-token")).toBe("pm-token-1234");
    await expect(providerMailer("resend", "re_key_123456", { fetch: answer(429) as typeof fetch }).send(outgoing)).rejects.toMatchObject({
      code: "E_RATE_LIMIT_EXCEEDED",
    });
    expect(() => providerBody("resend", { ...outgoing, parts: undefined })).toThrow(/parts/);
  });
});

describe("which provider a form's e-mail goes through (ADR 097)", () => {
  const form = { id: "contact" } as FormDef;
  const binding: Mailer = { send: async () => {} };
  const site = { EMAIL_PROVIDER: "postmark", EMAIL_PROVIDER_API_KEY: "pm-site-token", EMAIL_PROVIDER_URL: "https://pm.example/api" };
  /** The URL and the authentication the transport posts with. */
  async function sentWith(env: Record<string, string>) {
    const calls: { url: string; headers: Record<string, string> }[] = [];
    const transport = emailTransport(parseSettings(env), form, binding, (async (url: string | URL | Request, init?: RequestInit) => {
      calls.push({ url: String(url), headers: Object.fromEntries(new Headers(init?.headers)) });
      return new Response("{}", { status: 200 });
    }) as typeof fetch);
    if (!transport.ok) return transport.reason;
    if (transport.mailer === binding) return "send_email";
    const parts = notificationParts(content as never, "forms@example.org", ["owner@example.org"], null);
    await transport.mailer.send({ from: "forms@example.org", to: "owner@example.org", raw: buildMime(parts), parts });
    return calls[0];
  }

  it("is the site-wide provider for a form that names none of its own", async () => {
    expect(await sentWith(site)).toMatchObject({
      url: "https://pm.example/api/email",
      headers: { "x-postmark-server-token": "pm-site-token" },
    });
  });

  it("is the form's own provider, key and URL together when it names one", async () => {
    const own = { ...site, CONTACT_EMAIL_PROVIDER: "resend", CONTACT_EMAIL_PROVIDER_API_KEY: "re_form_key_1" };
    expect(await sentWith(own)).toMatchObject({ url: "https://api.resend.com/emails", headers: { authorization: "Bearer re_form_key_1" } });
    // The form's provider without its own key is held: the site's key belongs to the site's provider.
    expect(await sentWith({ ...site, CONTACT_EMAIL_PROVIDER: "resend" })).toBe("CONTACT_EMAIL_PROVIDER_API_KEY is not set");
  });

  it("is send_email when neither is set, and a bad site-wide value is named and not used", async () => {
    expect(await sentWith({})).toBe("send_email");
    expect(await sentWith({ EMAIL_PROVIDER: "resend" })).toBe("EMAIL_PROVIDER_API_KEY is not set");
    const settings = parseSettings({ EMAIL_PROVIDER: "mailgun", EMAIL_PROVIDER_URL: "http://10.0.0.1/x" });
    expect(settings.problems.map((p) => p.variable)).toEqual(expect.arrayContaining(["EMAIL_PROVIDER", "EMAIL_PROVIDER_URL"]));
    expect(settings.siteWide).toEqual({});
  });
});

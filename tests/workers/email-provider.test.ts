import { env } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it, vi } from "vitest";
import { drainOutbox } from "~/lib/delivery/drain.server";
import { loadSubmissionDetail } from "~/lib/storage/console-queries.server";
import { parseSettings } from "~/lib/settings/settings.server";
import { CONFIRMATION_NEEDS } from "~/lib/destinations/confirmation/spec";
import { appFetch, at, formPost, sink, sinkEnv, standinToken } from "./helpers";

// E-mail through an HTTP provider (ADR 092), against the sink's stand-ins of Resend's and Postmark's send
// APIs: the owner's notification and the confirmation go out as the provider's JSON, with the same
// subject, headers, text and HTML as the MIME text send_email would get, without any send_email binding.

const VALID = { name: "Grace Hopper", email: "grace@example.org", message: '=HYPERLINK("x") a ship in port is safe.' };
const origin = () => new URL(inject("sinkUrl")).origin;

type Message = {
  kind: string;
  title: string;
  text: string;
  html: string | null;
  headers: [string, string][];
  allHeaders: Record<string, string>;
  provider?: string;
};

function providerEnv(provider: string, overrides: Record<string, string> = {}): Env {
  const { SEND_EMAIL: _binding, ...rest } = sinkEnv({
    EMAIL_FROM: "forms@example.org",
    PUBLIC_URL: "https://forms.example.org",
    CONTACT_WEBHOOK_URL: "",
    CONTACT_SLACK_WEBHOOK_URL: "",
    CONTACT_DISCORD_WEBHOOK_URL: "",
    CONTACT_EMAIL_TO: "owner@example.org",
    CONTACT_CONFIRMATION: "on",
    CONTACT_EMAIL_PROVIDER: provider,
    CONTACT_EMAIL_PROVIDER_API_KEY: "re_standin_0123456789",
    CONTACT_EMAIL_PROVIDER_URL: `${origin()}/${provider}`,
    ...overrides,
  }) as Env & { SEND_EMAIL?: unknown };
  return rest as Env;
}

async function accept(appEnv: Env): Promise<string> {
  const res = await appFetch(formPost("/f/contact", { ...VALID, "cf-turnstile-response": standinToken() }), appEnv);
  expect(res.status).toBe(303);
  return (res.headers.get("location") ?? "").split("/").pop()!;
}

async function deliveries(id: string) {
  return (await loadSubmissionDetail(env.DB, id))?.deliveries ?? [];
}

beforeEach(async () => {
  await sink.reset();
  await env.DB.exec("DELETE FROM delivery_attempts; DELETE FROM deliveries; DELETE FROM submissions; DELETE FROM confirmation_limits");
});

describe("e-mail through an HTTP provider", () => {
  for (const provider of ["resend", "postmark"]) {
    it(`sends the owner's e-mail and the confirmation through ${provider}, the same messages, without send_email`, async () => {
      const appEnv = providerEnv(provider);
      const id = await accept(appEnv);
      await drainOutbox(env.DB, parseSettings(appEnv as unknown as Record<string, string>), { mailer: null, now: at(Date.now() + 60_000) });
      const list = await deliveries(id);
      expect(list.map((d) => [d.destination, d.status]).sort()).toEqual([
        ["confirmation", "delivered"],
        ["email", "delivered"],
      ]);
      const messages = (await sink.state()).messages as unknown as Message[];
      expect(messages.map((m) => m.provider)).toEqual([provider, provider]);
      const owner = messages.find((m) => m.allHeaders["Auto-Submitted"] === "auto-generated")!;
      expect(owner.title).toMatch(/^New submission: /);
      expect(owner.allHeaders).toEqual({ "Auto-Submitted": "auto-generated", "X-Gatepost-Submission": id });
      expect(Object.fromEntries(owner.headers)).toMatchObject({ To: "owner@example.org", "Reply-To": "grace@example.org" });
      expect(owner.text).toContain(VALID.message);
      expect(owner.html).toContain("=HYPERLINK(&quot;x&quot;)");
      const confirmation = messages.find((m) => m !== owner)!;
      expect(confirmation.allHeaders).toEqual({ "Auto-Submitted": "auto-replied" });
      expect(Object.fromEntries(confirmation.headers)).toMatchObject({ To: "grace@example.org" });
      expect(confirmation.text).not.toContain(VALID.message);
    });
  }

  it("classifies the provider's refusals: a rate limit is retried, a bad key is named, nothing is shown as delivered", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const appEnv = providerEnv("resend", { CONTACT_CONFIRMATION: "" });
    await fetch(`${inject("sinkControl")}/mode`, { method: "POST", body: JSON.stringify({ mode: "http429" }) });
    const id = await accept(appEnv);
    await drainOutbox(env.DB, parseSettings(appEnv as unknown as Record<string, string>), { mailer: null, now: at(Date.now() + 60_000) });
    const [limited] = await deliveries(id);
    expect(limited.status).toBe("pending");
    expect(limited.log.at(-1)?.error).toBe("rate_limited");
    expect(limited.lastError).toContain("resend answered 429");

    await sink.reset();
    const unset = providerEnv("resend", { CONTACT_CONFIRMATION: "", CONTACT_EMAIL_PROVIDER_API_KEY: "" });
    const held = await accept(unset);
    await drainOutbox(env.DB, parseSettings(unset as unknown as Record<string, string>), { mailer: null, now: at(Date.now() + 60_000) });
    const [waiting] = await deliveries(held);
    expect(waiting.status).toBe("pending");
    expect(waiting.lastError).toContain("CONTACT_EMAIL_PROVIDER_API_KEY is not set");
    expect((await sink.state()).messages).toEqual([]);
  });

  it("says what a confirmation needs when the provider refuses the sender's address", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const refusing = async () => new Response(JSON.stringify({ ErrorCode: 406, Message: "inactive recipient" }), { status: 422 });
    // Held at the answer (no key yet), then sent by the drain once the key is set, to a provider that refuses.
    const id = await accept(providerEnv("postmark", { CONTACT_EMAIL_TO: "", CONTACT_EMAIL_PROVIDER_API_KEY: "" }));
    const appEnv = providerEnv("postmark", { CONTACT_EMAIL_TO: "" });
    const due = await env.DB.prepare("SELECT MAX(next_attempt_at) AS due FROM deliveries").first<{ due: number }>();
    await drainOutbox(env.DB, parseSettings(appEnv as unknown as Record<string, string>), {
      mailer: null,
      now: at((due?.due ?? Date.now()) + 1),
      fetch: refusing as unknown as typeof fetch,
    });
    const [confirmation] = await deliveries(id);
    expect(confirmation.log.at(-1)?.error).toBe("skipped");
    expect(confirmation.lastError).toContain("postmark refused the recipient (ErrorCode 406)");
    expect(confirmation.lastError).toContain(CONFIRMATION_NEEDS);
  });

  it("sends a form's e-mail through the site-wide provider while the form names none, and through the form's own when it does", async () => {
    const siteWide = {
      CONTACT_EMAIL_PROVIDER: "",
      CONTACT_EMAIL_PROVIDER_API_KEY: "",
      CONTACT_EMAIL_PROVIDER_URL: "",
      EMAIL_PROVIDER: "postmark",
      EMAIL_PROVIDER_API_KEY: "pm-site-token-0123",
      EMAIL_PROVIDER_URL: `${origin()}/postmark`,
    };
    const drain = (appEnv: Env) =>
      drainOutbox(env.DB, parseSettings(appEnv as unknown as Record<string, string>), { mailer: null, now: at(Date.now() + 60_000) });
    const site = providerEnv("postmark", siteWide);
    const first = await accept(site);
    await drain(site);
    expect((await deliveries(first)).map((d) => [d.destination, d.status]).sort()).toEqual([
      ["confirmation", "delivered"],
      ["email", "delivered"],
    ]);
    expect(((await sink.state()).messages as unknown as Message[]).map((m) => m.provider)).toEqual(["postmark", "postmark"]);

    await sink.reset();
    await env.DB.exec("DELETE FROM confirmation_limits");
    const own = providerEnv("resend", {
      ...siteWide,
      CONTACT_EMAIL_PROVIDER: "resend",
      CONTACT_EMAIL_PROVIDER_API_KEY: "re_form_key_0123",
      CONTACT_EMAIL_PROVIDER_URL: `${origin()}/resend`,
    });
    const second = await accept(own);
    await drain(own);
    expect((await deliveries(second)).every((d) => d.status === "delivered")).toBe(true);
    expect(((await sink.state()).messages as unknown as Message[]).map((m) => m.provider)).toEqual(["resend", "resend"]);
  });
});

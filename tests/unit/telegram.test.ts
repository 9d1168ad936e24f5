import { describe, expect, it } from "vitest";
import { contactForm } from "~/forms/contact";
import { describeSubmission } from "~/lib/sending/message-content.server";
import { parseSettings } from "~/lib/settings/settings.server";
import type { StoredSubmission } from "~/lib/storage/submissions.server";
import { LOCAL_TELEGRAM, telegram } from "~/lib/destinations/telegram/spec";
import {
  buildTelegramMessage,
  buildTelegramText,
  readRetryAfter,
  sender,
  sendTelegram,
  TELEGRAM_MAX_TEXT,
  type TelegramTarget,
} from "~/lib/destinations/telegram/sender.server";
// @ts-expect-error - plain ESM stand-in of the local sink
import { readTelegramHtml, sink } from "~/lib/destinations/telegram/sink.mjs";

// The Telegram kind: its HTML escaped so a typed value stays text, the 4,096-character limit with a note
// on where the rest is, its settings' checks, and attempts against the local sink's stand-in (the same
// parser of Telegram's HTML that npm start uses), including 429 retry_after and 403.

const ID = "5f0c6a3e-2b1d-4c8e-9a7f-3d2e1b0c9a8f";
const LINK = `https://forms.example.org/admin/submissions/${ID}`;
const API = "https://telegram-standin.test/telegram";

function content(fields: Record<string, string>, publicUrl: string | null = "https://forms.example.org") {
  const submission = { id: ID, formId: "contact", receivedAt: "2026-11-22T17:00:00.000Z", fields, verification: null };
  return describeSubmission(contactForm, submission as unknown as StoredSubmission, publicUrl);
}

/** The sink's stand-in as a fetch function, in `mode`. */
function standin(mode = "normal") {
  const messages: Array<{ title: string; text: string; reference: string | null }> = [];
  const { handle } = sink.start("http://unused", (message: (typeof messages)[number]) => messages.push(message));
  const fetch = (async (input: string, init: RequestInit) => {
    const path = new URL(input).pathname;
    const answer = handle(init.method, path, {}, String(init.body), mode) ?? { status: 404, body: { ok: false } };
    return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { "content-type": "application/json" } });
  }) as unknown as typeof globalThis.fetch;
  return { fetch, messages };
}

const target = (chatId = LOCAL_TELEGRAM.chatId): TelegramTarget => ({
  kind: "telegram",
  name: "telegram",
  token: LOCAL_TELEGRAM.token,
  chatId,
  api: API,
});
const HOSTILE = {
  name: 'Ada <b>bold</b> & "co"',
  email: "ada@example.org",
  message: '<a href="https://evil.example">click</a> &amp; </b>',
};

describe("the Telegram message", () => {
  it("escapes every typed value for HTML parse mode, so Telegram shows it as typed", () => {
    const text = buildTelegramText(content(HOSTILE));
    expect(text).toContain("Ada &lt;b&gt;bold&lt;/b&gt; &amp; &quot;co&quot;");
    expect(text).not.toContain('evil.example">');
    const shown = readTelegramHtml(text);
    expect(shown).toContain(HOSTILE.name);
    expect(shown).toContain(HOSTILE.message);
    expect(shown).toContain(`Reference ${ID} · Open in Gatepost (${LINK})`);
    expect(buildTelegramMessage("-100", content(HOSTILE))).toMatchObject({
      parse_mode: "HTML",
      link_preview_options: { is_disabled: true },
    });
  });

  it("keeps to 4,096 characters and says the rest is in Gatepost, linked", () => {
    const text = buildTelegramText(content({ name: "Ada", email: "ada@example.org", message: "é&<".repeat(3000) }));
    expect(text.length).toBeLessThanOrEqual(TELEGRAM_MAX_TEXT);
    const shown = readTelegramHtml(text)!;
    expect(shown).toContain(`cut here: the rest is in the full submission in Gatepost (${LINK})`);
    expect(shown).toContain(`Reference ${ID}`);
    // Without PUBLIC_URL the rest is in the console, said in words.
    const plain = buildTelegramText(content({ name: "Ada", email: "a@b.org", message: "x".repeat(5000) }, null));
    expect(readTelegramHtml(plain)).toContain("the rest is in the console");
    // A short message is whole.
    expect(buildTelegramText(content({ name: "Ada", email: "a@b.org", message: "hi" }))).not.toContain("cut here");
  });
});

describe("the Telegram settings", () => {
  const [token, chat, api] = telegram.settings;
  const context = { allowLoopbackHttp: false };

  it("take a bot token, a chat id or @channel, and an https stand-in URL only", () => {
    expect(token.check!(LOCAL_TELEGRAM.token).ok).toBe(true);
    expect(token.check!("123:short").ok).toBe(false);
    expect(token.shown).toBe("never");
    expect(chat.check!("-1001234567890").ok).toBe(true);
    expect(chat.check!("@gatepost_alerts").ok).toBe(true);
    expect(chat.check!("my chat").ok).toBe(false);
    expect(api.check!("https://api.example.org", context).ok).toBe(true);
    expect(api.check!("http://127.0.0.1:8080", context).ok).toBe(false);
    expect(api.check!("https://10.0.0.1", context).ok).toBe(false);
  });

  it("resolve to the bot's API call, or hold it with the variable's name", () => {
    const settings = parseSettings({});
    const input = (own: Record<string, string>) => ({
      settings,
      form: contactForm,
      destination: { kind: "telegram" as const },
      name: "telegram",
      own: own as never,
      variable: (suffix: string) => `CONTACT_${suffix}`,
    });
    expect(sender.resolve(input({ TELEGRAM_BOT_TOKEN: LOCAL_TELEGRAM.token, TELEGRAM_CHAT_ID: "-100" }))).toMatchObject({
      ok: true,
      destination: { api: "https://api.telegram.org", chatId: "-100" },
    });
    expect(sender.resolve(input({ TELEGRAM_CHAT_ID: "-100" }))).toEqual({ ok: false, reason: "CONTACT_TELEGRAM_BOT_TOKEN is not set" });
    expect(sender.resolve(input({ TELEGRAM_BOT_TOKEN: "1:../../x", TELEGRAM_CHAT_ID: "-100" }))).toMatchObject({ ok: false });
    const inside = input({ TELEGRAM_BOT_TOKEN: LOCAL_TELEGRAM.token, TELEGRAM_CHAT_ID: "-100", TELEGRAM_API_URL: "https://192.168.1.1" });
    expect(sender.resolve(inside)).toMatchObject({ ok: false, reason: expect.stringContaining("CONTACT_TELEGRAM_API_URL") });
  });
});

describe("a Telegram attempt, against the stand-in", () => {
  it("is delivered and shown as the chat shows it", async () => {
    const { fetch, messages } = standin();
    expect(await sendTelegram(target(), content(HOSTILE), { fetch })).toMatchObject({ delivered: true, httpStatus: 200 });
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ title: "New submission: Contact us", reference: ID });
    expect(messages[0].text).toContain(HOSTILE.message);
  });

  it("waits a 429's retry_after, and takes a 403 as final with what to do", async () => {
    const limited = await sendTelegram(target(), content(HOSTILE), { fetch: standin("http429").fetch });
    expect(limited).toMatchObject({ delivered: false, error: "rate_limited", retryAfterMs: 7000 });
    expect(limited.detail).toContain("retry after 7 s");
    const removed = await sendTelegram(target(LOCAL_TELEGRAM.removedChatId), content(HOSTILE), { fetch: standin().fetch });
    expect(removed).toMatchObject({ delivered: false, httpStatus: 403, error: "gone" });
    expect(removed.detail).toContain("the bot is not in the chat");
    const lost = await sendTelegram(target("-42"), content(HOSTILE), { fetch: standin().fetch });
    expect(lost).toMatchObject({ delivered: false, error: "http_status", detail: "HTTP 400 from Telegram: Bad Request: chat not found" });
    expect(readRetryAfter('{"parameters":{"retry_after":3}}')).toBe(3000);
    expect(readRetryAfter("not json")).toBeUndefined();
  });

  it("never writes the token into what the timeline shows", async () => {
    const failing = (async () => {
      throw new TypeError(`connect failed for ${API}/bot${LOCAL_TELEGRAM.token}/sendMessage`);
    }) as unknown as typeof fetch;
    const record = await sendTelegram(target(), content(HOSTILE), { fetch: failing });
    expect(record.error).toBe("network");
    expect(record.detail).not.toContain(LOCAL_TELEGRAM.token);
  });
});

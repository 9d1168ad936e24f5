import { env } from "cloudflare:test";
import { inject } from "vitest";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { parseSettings } from "~/lib/settings/settings.server";
import { drainOutbox } from "~/lib/delivery/drain.server";
import { loadSubmissionDetail } from "~/lib/storage/console-queries.server";
import { LOCAL_TELEGRAM } from "~/lib/destinations/telegram/spec";
import { appFetch, at, formPost, sink, sinkEnv, standin, standinToken } from "./helpers";

// Telegram, Google Chat and Microsoft Teams on the one outbox, through the local sink's stand-ins (the
// ones `npm start` uses): accepted, queued in the accept batch, sent right after the answer and shown
// as each service would render it, typed markup shown as typed. Telegram's 429 waits its retry_after
// like any 429, and its 403 (the bot left the chat) is dead at once with the words the console shows.

const HOSTILE = {
  name: 'Ada <b>Lovelace</b> & "co" **bold** <users/all>',
  email: "ada@example.org",
  message: '<a href="https://evil.example">click</a> {{DATE(2017-02-14T06:08:39Z, SHORT)}} &amp;',
};
const origin = () => new URL(inject("sinkUrl")).origin;

function chatEnv(overrides: Record<string, string> = {}) {
  return sinkEnv({
    PUBLIC_URL: "https://forms.example.org",
    CONTACT_WEBHOOK_URL: "",
    CONTACT_TELEGRAM_BOT_TOKEN: LOCAL_TELEGRAM.token,
    CONTACT_TELEGRAM_CHAT_ID: LOCAL_TELEGRAM.chatId,
    CONTACT_TELEGRAM_API_URL: `${origin()}/telegram`,
    CONTACT_GOOGLE_CHAT_WEBHOOK_URL: `${origin()}/googlechat`,
    CONTACT_TEAMS_WEBHOOK_URL: `${origin()}/teams`,
    ...overrides,
  });
}

async function accept(appEnv: Env): Promise<string> {
  const res = await appFetch(formPost("/f/contact", { ...HOSTILE, "cf-turnstile-response": standinToken() }), appEnv);
  expect(res.status).toBe(303);
  return (res.headers.get("location") ?? "").split("/").pop()!;
}

async function rows(): Promise<Array<Record<string, any>>> {
  return (await env.DB.prepare("SELECT * FROM deliveries ORDER BY destination").all<Record<string, any>>()).results;
}

async function setSinkMode(mode: string) {
  const res = await fetch(`${inject("sinkControl")}/mode`, { method: "POST", body: JSON.stringify({ mode }) });
  if (!res.ok) throw new Error(await res.text());
}

beforeEach(async () => {
  await standin.reset();
  await sink.reset();
  await env.DB.exec("DELETE FROM delivery_attempts; DELETE FROM deliveries; DELETE FROM submissions");
});

describe("the chat kinds through the local sink", () => {
  it("are each delivered once and shown as the service renders them, typed markup as typed", async () => {
    const id = await accept(chatEnv());
    expect((await rows()).map((r) => [r.destination, r.status, r.attempts])).toEqual([
      ["googlechat", "delivered", 1],
      ["teams", "delivered", 1],
      ["telegram", "delivered", 1],
    ]);
    const messages = (await sink.state()).messages.filter((m) => m.reference === id);
    expect(messages.map((m) => m.kind).sort()).toEqual(["googlechat", "teams", "telegram"]);
    for (const message of messages) {
      expect(message.title, message.kind).toBe("New submission: Contact us");
      expect(message.text, message.kind).toContain(HOSTILE.name);
      expect(message.text, message.kind).toContain("https://forms.example.org/admin/submissions/");
    }
    // Each shows the message as typed: Telegram and Chat parse their HTML; Teams' function braces are broken.
    expect(messages.find((m) => m.kind === "telegram")!.text).toContain(HOSTILE.message);
    expect(messages.find((m) => m.kind === "googlechat")!.text).toContain(HOSTILE.message);
    expect(messages.find((m) => m.kind === "teams")!.text).toContain('<a href="https://evil.example">click</a> {\u200B{DATE(');
  });

  it("waits Telegram's retry_after on a 429 before trying again", async () => {
    await setSinkMode("http429");
    const t0 = Date.now();
    await accept(chatEnv({ CONTACT_GOOGLE_CHAT_WEBHOOK_URL: "", CONTACT_TEAMS_WEBHOOK_URL: "" }));
    const [telegram] = await rows();
    expect(telegram).toMatchObject({ destination: "telegram", status: "pending", attempts: 1 });
    expect(telegram.last_error).toContain("retry after 7 s");
    expect(telegram.next_attempt_at).toBeGreaterThanOrEqual(t0 + 7_000);
    await setSinkMode("normal");
    const settings = parseSettings(chatEnv());
    expect(await drainOutbox(env.DB, settings, { now: at(t0 + 3_000) })).toMatchObject({ claimed: 0 });
    expect(await drainOutbox(env.DB, settings, { now: at(telegram.next_attempt_at) })).toMatchObject({ delivered: 1 });
  });

  it("takes Telegram's 403 as final, saying the bot is not in the chat", async () => {
    const id = await accept(
      chatEnv({
        CONTACT_TELEGRAM_CHAT_ID: LOCAL_TELEGRAM.removedChatId,
        CONTACT_GOOGLE_CHAT_WEBHOOK_URL: "",
        CONTACT_TEAMS_WEBHOOK_URL: "",
      }),
    );
    const [telegram] = await rows();
    expect(telegram).toMatchObject({ destination: "telegram", status: "dead", attempts: 1 });
    expect(telegram.last_error).toContain("the bot is not in the chat (removed, or blocked): add it back, then redeliver");
    const detail = await loadSubmissionDetail(env.DB, id);
    expect(detail!.deliveries[0].log.map((a) => [a.httpStatus, a.error])).toEqual([[403, "gone"]]);
  });

  it("holds a URL that reaches inside, as a webhook's would be", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    await accept(chatEnv({ ALLOW_LOOPBACK_WEBHOOKS: "", CONTACT_TELEGRAM_BOT_TOKEN: "" }));
    const held = await rows();
    expect(held.map((r) => [r.destination, r.status, r.attempts])).toEqual([
      ["googlechat", "pending", 0],
      ["teams", "pending", 0],
      ["telegram", "pending", 0],
    ]);
    expect(held[0].last_error).toContain("CONTACT_GOOGLE_CHAT_WEBHOOK_URL must not reach inside");
    expect(held[2].last_error).toContain("CONTACT_TELEGRAM_BOT_TOKEN is not set");
    expect(logged).toHaveBeenCalledTimes(3);
  });
});

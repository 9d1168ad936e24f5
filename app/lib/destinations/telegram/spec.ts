import { z } from "zod";
import LOCAL from "~/lib/destinations/telegram/local-sink.json";
import type { KindSpec } from "~/lib/destinations/kind";
import { standinUrlSetting } from "~/lib/destinations/url-setting";

// Telegram: a bot's message per submission to one chat (sender.server.ts sends it). The bot token is a
// secret, sealed when set in the console; the API URL is set only for a stand-in.

const TOKEN = /^\d{1,20}:[A-Za-z0-9_-]{30,100}$/;
/** A chat's numeric id (groups and channels are negative) or a public channel's @name. */
const CHAT_ID = /^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31})$/;

/** A token as @BotFather gives it. */
export function isTelegramToken(value: string): boolean {
  return TOKEN.test(value);
}

/** The bot and chats of the local sink's stand-in (local-sink.json, which its sink.mjs reads too). */
export const LOCAL_TELEGRAM: { token: string; chatId: string; removedChatId: string } = LOCAL;

export const telegram = {
  kind: "telegram",
  product: "Telegram",
  label: "Telegram",
  testLabel: "Telegram",
  settings: [
    {
      suffix: "TELEGRAM_BOT_TOKEN",
      title: "Telegram bot token",
      input: "New bot token (from @BotFather)",
      hint: "The token @BotFather gave the bot (123456:ABC…). Sealed; never shown again.",
      type: "text",
      shown: "never",
      check: (value) =>
        TOKEN.test(value)
          ? { ok: true, value }
          : { ok: false, message: "Paste the token as @BotFather shows it (digits, a colon, then letters)." },
      problem: (value) => (TOKEN.test(value) ? null : "is not a bot token (123456:ABC…); messages are held"),
      local: () => LOCAL_TELEGRAM.token,
    },
    {
      suffix: "TELEGRAM_CHAT_ID",
      title: "Telegram chat id",
      input: "New chat id (-100… or @channel)",
      hint: "The chat the bot posts in: its id (groups and channels start with -) or a public channel's @name. Add the bot to it first.",
      type: "text",
      shown: "full",
      maxLength: 40,
      check: (value) =>
        CHAT_ID.test(value)
          ? { ok: true, value }
          : { ok: false, message: "Use the chat's id (digits, - first for a group) or @channelname." },
      problem: (value) => (CHAT_ID.test(value) ? null : "is not a chat id (-100… or @channel); messages are held"),
      local: () => LOCAL_TELEGRAM.chatId,
    },
    {
      ...standinUrlSetting("TELEGRAM_API_URL", "Telegram Bot", "https://api.telegram.org", "messages"),
      local: (sink) => `${sink.origin}/telegram`,
    },
  ],
  isOn: (value) => value("TELEGRAM_BOT_TOKEN") !== "" || value("TELEGRAM_CHAT_ID") !== "",
  email: false,
  pausable: true,
  onConsoleForms: true,
  definition: () => z.strictObject({ kind: z.literal("telegram") }),
  docs: "docs/destinations.md#telegram-telegram",
} as const satisfies KindSpec;

// The local sink's stand-in for the Telegram Bot API: POST /telegram/bot<token>/sendMessage with its one
// bot token and chat, parsed as Telegram parses HTML mode (its tags only, entities escaped, 4,096
// characters after parsing) and shown as the chat would show it. The sink's modes http500 and http429
// (Telegram's parameters.retry_after) apply; the chat `removedChatId` answers 403 as a chat the bot left.
import { readFileSync } from "node:fs";

/** The bot token and chats `npm start` points a form at (local-sink.json: the Worker's local default reads the same file). */
export const TELEGRAM_LOCAL = JSON.parse(readFileSync(new URL("./local-sink.json", import.meta.url), "utf8"));

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const TAGS = new Set(["b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "code", "pre", "a", "blockquote", "tg-spoiler"]);
const ENTITIES = { lt: "<", gt: ">", amp: "&", quot: '"' };

/** Telegram's HTML as the chat shows it (links as "text (url)"), or null where Telegram cannot parse it. */
export function readTelegramHtml(html) {
  let text = "";
  const open = [];
  for (let i = 0; i < html.length;) {
    const char = html[i];
    if (char === "<") {
      const tag = /^<(\/?)([a-z-]+)((?:\s+[a-z-]+="[^"<>]*")*)\s*>/.exec(html.slice(i));
      if (!tag || !TAGS.has(tag[2])) return null;
      if (tag[1]) {
        const last = open.pop();
        if (!last || last.name !== tag[2]) return null;
        if (last.href) text += ` (${last.href})`;
      } else {
        const href = /href="([^"]*)"/.exec(tag[3])?.[1];
        open.push({ name: tag[2], href: href === undefined ? null : decode(href) });
      }
      i += tag[0].length;
    } else if (char === "&") {
      const entity = /^&(lt|gt|amp|quot|#\d{1,7});/.exec(html.slice(i));
      if (!entity) return null;
      text += decode(entity[0]);
      i += entity[0].length;
    } else if (char === ">") {
      return null;
    } else {
      text += char;
      i += 1;
    }
  }
  return open.length === 0 ? text : null;
}

function decode(text) {
  return text.replace(/&(lt|gt|amp|quot|#\d{1,7});/g, (_, name) =>
    name[0] === "#" ? String.fromCodePoint(Number(name.slice(1))) : ENTITIES[name],
  );
}

export const sink = {
  kind: "telegram",
  /** `npm start`: the settings (by suffix) pointing a form here while `switch`, its on-switch, is unset. */
  local: {
    switch: "TELEGRAM_BOT_TOKEN",
    settings: ({ origin }) => ({
      TELEGRAM_BOT_TOKEN: TELEGRAM_LOCAL.token,
      TELEGRAM_CHAT_ID: TELEGRAM_LOCAL.chatId,
      TELEGRAM_API_URL: `${origin}/telegram`,
    }),
  },
  shows: "Telegram messages",
  /** The stand-in; `keep(message)` shows a message on the sink's page. */
  start(_origin, keep) {
    let messageId = 0;
    const refuse = (status, description, parameters) => ({
      status,
      body: { ok: false, error_code: status, description, ...(parameters ? { parameters } : {}) },
    });

    /** Answers a request under /telegram: { status, body } or null when the path is not its. */
    function handle(method, path, _headers, body, mode = "normal") {
      const call = /^\/telegram\/bot([^/]+)\/sendMessage$/.exec(path);
      if (!call || method !== "POST") return null;
      if (decodeURIComponent(call[1]) !== TELEGRAM_LOCAL.token) return refuse(401, "Unauthorized");
      if (mode === "http500") return refuse(500, "Internal Server Error");
      if (mode === "http429") return refuse(429, "Too Many Requests: retry after 7", { retry_after: 7 });
      let message;
      try {
        message = JSON.parse(body);
      } catch {
        return refuse(400, "Bad Request: message text is empty");
      }
      const chat = String(message.chat_id ?? "");
      if (chat === TELEGRAM_LOCAL.removedChatId) return refuse(403, "Forbidden: bot was kicked from the supergroup chat");
      if (chat !== TELEGRAM_LOCAL.chatId) return refuse(400, "Bad Request: chat not found");
      if (message.parse_mode !== "HTML") return refuse(400, "Bad Request: the stand-in takes HTML parse mode only");
      const shown = readTelegramHtml(String(message.text ?? ""));
      if (shown === null) return refuse(400, "Bad Request: can't parse entities");
      if (shown.length === 0 || shown.length > 4096) return refuse(400, "Bad Request: message is too long");
      messageId += 1;
      const [title, ...rest] = shown.split("\n");
      const text = rest.join("\n").trim();
      keep({
        kind: "telegram",
        at: new Date().toISOString(),
        title,
        headers: [["Chat", chat]],
        text,
        reference: UUID.exec(text)?.[0] ?? null,
        payload: message,
      });
      return { status: 200, body: { ok: true, result: { message_id: messageId, chat: { id: Number(chat) }, text: shown } } };
    }
    return { handle };
  },
};

import { postAttempt, type AttemptRecord } from "~/lib/sending/attempt.server";
import { linkedFiles } from "~/lib/sending/linked-files.server";
import { describeSubmission, ELLIPSIS, truncateEscaped, type MessageContent } from "~/lib/sending/message-content.server";
import { isTelegramToken } from "~/lib/destinations/telegram/spec";
import { defineSender, resolveApiBase, type ResolvedDestination } from "~/lib/destinations/sender.server";

// A Telegram bot message (sendMessage) per submission in HTML parse mode: Telegram's HTML needs only
// < > & escaped (core.telegram.org/bots/api#html-style), and everything a person typed is text, never a
// tag. The message keeps to Telegram's 4,096 characters, counted on the HTML itself (more than Telegram
// counts after parsing); what does not fit is left to the console, and the message says so.

const API = "https://api.telegram.org";
/** core.telegram.org/bots/api#sendmessage: text is 1-4096 characters. */
export const TELEGRAM_MAX_TEXT = 4096;

export interface TelegramTarget extends ResolvedDestination {
  token: string;
  chatId: string;
  api: string;
}

/** Escapes text for Telegram's HTML parse mode (and its attribute values). */
export function escapeTelegram(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

/** The message's HTML for one submission, at most TELEGRAM_MAX_TEXT characters. Pure. */
export function buildTelegramText(content: MessageContent): string {
  const where = content.link ? `<a href="${escapeTelegram(content.link)}">the full submission in Gatepost</a>` : "the console";
  const restNote = `\n\n${ELLIPSIS} cut here: the rest is in ${where}`;
  const title = `<b>${truncateEscaped(`New submission: ${content.formTitle}`, 256, escapeTelegram).text}</b>`;
  const footer = `\n\nReference <code>${escapeTelegram(content.submissionId)}</code>${content.link ? ` · <a href="${escapeTelegram(content.link)}">Open in Gatepost</a>` : ""}`;
  const files = content.files
    .filter((file) => file.url !== null)
    .map(
      (file) =>
        `\n<a href="${escapeTelegram(file.url!)}">${truncateEscaped(file.name, 160, escapeTelegram).text}</a> (${escapeTelegram(file.size)})`,
    );
  let text = title;
  for (const row of content.rows) {
    const head = `\n\n<b>${truncateEscaped(row.label, 200, escapeTelegram).text}</b>\n`;
    const value = escapeTelegram(row.value);
    const room = TELEGRAM_MAX_TEXT - text.length - footer.length - restNote.length;
    if (head.length + value.length <= room) {
      text += head + value;
      continue;
    }
    // The value that does not fit is cut where it stops fitting, never inside an escape, and the rest left out.
    if (room - head.length > 40) text += head + truncateEscaped(row.value, room - head.length, escapeTelegram).text;
    return text + restNote + footer;
  }
  const filesText = files.length > 0 ? `\n\n<b>Files</b>${files.join("")}` : "";
  if (text.length + filesText.length + footer.length > TELEGRAM_MAX_TEXT) return text + restNote + footer;
  return text + filesText + footer;
}

/** The sendMessage body: HTML parse mode, no link previews. */
export function buildTelegramMessage(chatId: string, content: MessageContent): Record<string, unknown> {
  return { chat_id: chatId, text: buildTelegramText(content), parse_mode: "HTML", link_preview_options: { is_disabled: true } };
}

/** Telegram's `parameters.retry_after` (seconds) in an error body, in ms; undefined when absent. */
export function readRetryAfter(excerpt: string | null): number | undefined {
  try {
    const seconds = (JSON.parse(excerpt ?? "") as { parameters?: { retry_after?: unknown } }).parameters?.retry_after;
    return typeof seconds === "number" && seconds >= 0 ? Math.ceil(seconds) * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** Sends the message once. 429 waits its retry_after; 403 (the bot left or was removed) is final. Never throws. */
export async function sendTelegram(
  target: TelegramTarget,
  content: MessageContent,
  options: { timeoutMs?: number; fetch?: typeof fetch } = {},
): Promise<AttemptRecord> {
  const sent = await postAttempt({
    url: `${target.api}/bot${target.token}/sendMessage`,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(buildTelegramMessage(target.chatId, content)),
    timeoutMs: options.timeoutMs,
    fetch: options.fetch,
  });
  // The token is in the URL: no text about the call may carry it.
  const record = { ...sent, detail: sent.detail?.replaceAll(target.token, "…") ?? null };
  if (record.delivered || record.httpStatus === null) return record;
  if (record.httpStatus === 429) {
    const retryAfterMs = record.retryAfterMs ?? readRetryAfter(record.excerpt);
    const wait = retryAfterMs === undefined ? "" : `, retry after ${retryAfterMs / 1000} s`;
    return { ...record, retryAfterMs, detail: `HTTP 429 (Telegram rate limit${wait})` };
  }
  if (record.httpStatus === 403) {
    const detail = "HTTP 403: the bot is not in the chat (removed, or blocked): add it back, then redeliver";
    return { ...record, error: "gone", detail };
  }
  if (record.httpStatus === 401 || record.httpStatus === 404)
    return { ...record, detail: `HTTP ${record.httpStatus}: Telegram refused the bot token` };
  if (record.httpStatus === 400) return { ...record, detail: `HTTP 400 from Telegram: ${describeBadRequest(record.excerpt)}` };
  return record;
}

/** Telegram's own words for a 400 ("chat not found"), bounded. */
function describeBadRequest(excerpt: string | null): string {
  try {
    const description = (JSON.parse(excerpt ?? "") as { description?: unknown }).description;
    return typeof description === "string" ? description.slice(0, 160) : "the message was refused";
  } catch {
    return "the message was refused";
  }
}

/** The Telegram kind's sending half (its settings: spec.ts). */
export const sender = defineSender<TelegramTarget>({
  kind: "telegram",
  resolve(input) {
    const { own, name, variable } = input;
    if (!own.TELEGRAM_BOT_TOKEN) return { ok: false, reason: `${variable("TELEGRAM_BOT_TOKEN")} is not set` };
    if (!own.TELEGRAM_CHAT_ID) return { ok: false, reason: `${variable("TELEGRAM_CHAT_ID")} is not set` };
    // The token becomes part of the URL's path: only a token's shape may get there.
    if (!isTelegramToken(own.TELEGRAM_BOT_TOKEN)) return { ok: false, reason: `${variable("TELEGRAM_BOT_TOKEN")} is not a bot token` };
    const api = resolveApiBase(input, "TELEGRAM_API_URL", API);
    if (!api.ok) return api;
    return { ok: true, destination: { kind: "telegram", name, token: own.TELEGRAM_BOT_TOKEN, chatId: own.TELEGRAM_CHAT_ID, api: api.url } };
  },
  async attempt(target, { settings, form, submission, nowMs, timeoutMs, fetch }) {
    const files = await linkedFiles(settings, form, submission, nowMs);
    return sendTelegram(target, describeSubmission(form, submission, settings.publicUrl, files), { timeoutMs, fetch });
  },
});

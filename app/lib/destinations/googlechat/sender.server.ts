import { postChatMessage, type AttemptRecord } from "~/lib/sending/attempt.server";
import { ELLIPSIS, truncateEscaped, type MessageContent } from "~/lib/sending/message-content.server";
import { countOf } from "~/lib/text/count";
import { messageSender } from "~/lib/destinations/sender.server";

// A Google Chat message with one card (cardsV2) per submission. Widget text takes a small set of HTML
// tags (developers.google.com/workspace/chat/format-messages#card-formatting), so a label or value is
// HTML-escaped and its line breaks become <br>; the header, buttons and fallbackText are plain text.
// No `text` is sent: Chat's text format reads <users/…> as a mention and has no escape for it.

/** Chat's limits: 32,000 bytes a message, 100 widgets a card; the sender keeps a margin for the JSON. */
export const GOOGLE_CHAT_LIMITS = { bytes: 32_000, widgets: 100, value: 4_000, title: 200, buttons: 20 } as const;

/** Escapes text for a card widget's HTML, line breaks as <br>. */
export function escapeGoogleChat(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;").replaceAll("\n", "<br>");
}

/** The message for one submission within Chat's limits: values share what the bytes allow. Pure. */
export function buildGoogleChatMessage(content: MessageContent): Record<string, unknown> {
  let perValue: number = GOOGLE_CHAT_LIMITS.value;
  for (;;) {
    const message = buildWithValueRoom(content, perValue);
    if (new TextEncoder().encode(JSON.stringify(message)).length <= GOOGLE_CHAT_LIMITS.bytes - 1_000 || perValue <= 40) return message;
    perValue = Math.floor(perValue / 2);
  }
}

function buildWithValueRoom(content: MessageContent, perValue: number): Record<string, unknown> {
  const where = content.link ? `<a href="${escapeGoogleChat(content.link)}">full submission</a>` : "full text in the console";
  const linked = content.files.filter((file) => file.url !== null).slice(0, GOOGLE_CHAT_LIMITS.buttons);
  const slots = GOOGLE_CHAT_LIMITS.widgets - 3;
  const shown = content.rows.length > slots ? content.rows.slice(0, slots - 1) : content.rows;
  const widgets: Array<Record<string, unknown>> = shown.map((row) => {
    const value = truncateEscaped(row.value, perValue, escapeGoogleChat);
    const label = truncateEscaped(row.label, 200, escapeGoogleChat).text;
    return { textParagraph: { text: `<b>${label}</b><br>${value.text}${value.cut ? ` (cut: ${where})` : ""}` } };
  });
  if (shown.length < content.rows.length) {
    widgets.push({
      textParagraph: { text: `${ELLIPSIS} ${countOf(content.rows.length - shown.length, "more field", "more fields")}: ${where}` },
    });
  }
  const buttons = [
    ...linked.map((file) => ({ text: truncateEscaped(`Download ${file.name}`, 60).text, onClick: { openLink: { url: file.url } } })),
    ...(content.link ? [{ text: "Open in Gatepost", onClick: { openLink: { url: content.link } } }] : []),
  ];
  if (buttons.length > 0) widgets.push({ buttonList: { buttons } });
  const title = truncateEscaped(`New submission: ${content.formTitle}`, GOOGLE_CHAT_LIMITS.title).text;
  return {
    fallbackText: title,
    cardsV2: [
      {
        cardId: "submission",
        card: { header: { title, subtitle: `Reference ${content.submissionId}` }, sections: [{ widgets }] },
      },
    ],
  };
}

/** Posts the message. 429 Retry-After and 404/410 (webhook removed) are reported as such. Never throws. */
export function sendGoogleChat(
  url: string,
  content: MessageContent,
  options: { timeoutMs?: number; fetch?: typeof fetch } = {},
): Promise<AttemptRecord> {
  return postChatMessage(url, buildGoogleChatMessage(content), options);
}

/** The Google Chat kind's sending half (its settings: spec.ts). */
export const sender = messageSender("googlechat", "GOOGLE_CHAT_WEBHOOK_URL", sendGoogleChat);

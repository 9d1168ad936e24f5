import { postChatMessage, type AttemptRecord } from "~/lib/sending/attempt.server";
import { ELLIPSIS, truncateEscaped, type MessageContent } from "~/lib/sending/message-content.server";
import { messageSender } from "~/lib/destinations/sender.server";

// A Discord embed per submission: `allowed_mentions: {parse: []}` stops every ping, and markdown in submitted
// text is backslash-escaped.

/** discord.com/developers/docs/resources/message#embed-object-embed-limits */
export const DISCORD_LIMITS = { title: 256, fields: 25, fieldName: 256, fieldValue: 1024, footer: 2048, total: 6000 } as const;

/** Backslash-escapes Discord markdown and mention/link syntax. */
export function escapeDiscord(text: string): string {
  return text.replace(/[\\*_~`|<>#\-[\]()@]/g, (char) => `\\${char}`);
}

export interface DiscordMessage {
  username: string;
  embeds: Array<Record<string, unknown>>;
  allowed_mentions: { parse: [] };
}

/** The webhook payload for one submission. Pure. */
export function buildDiscordMessage(content: MessageContent): DiscordMessage {
  const more = content.link ? ` [full submission](${content.link})` : " (full text in the console)";
  const title = truncateEscaped(`New submission: ${content.formTitle}`, DISCORD_LIMITS.title, escapeDiscord).text;
  const footer = `Reference ${content.submissionId}`;
  const filesValue = discordFiles(content);
  const slots = DISCORD_LIMITS.fields - (filesValue ? 1 : 0);
  const overflow = content.rows.length > slots;
  const shown = overflow ? content.rows.slice(0, slots - 1) : content.rows;
  const names = shown.map((row) => truncateEscaped(row.label, DISCORD_LIMITS.fieldName, escapeDiscord).text);
  const overflowName = "More fields";
  const overflowValue = overflow ? `${ELLIPSIS} ${content.rows.length - shown.length} more:${more}` : "";
  // The 6,000-character total is shared out evenly between the values.
  const fixed =
    title.length +
    footer.length +
    names.join("").length +
    (overflow ? overflowName.length + overflowValue.length : 0) +
    (filesValue ? FILES_NAME.length + filesValue.length : 0);
  const perValue = Math.min(DISCORD_LIMITS.fieldValue, Math.floor((DISCORD_LIMITS.total - fixed) / Math.max(shown.length, 1)));
  const fields = shown.map((row, i) => {
    const value = truncateEscaped(row.value, Math.max(perValue - more.length, 16), escapeDiscord);
    return { name: names[i], value: value.cut ? value.text + more : value.text, inline: false };
  });
  if (overflow) fields.push({ name: overflowName, value: overflowValue, inline: false });
  if (filesValue) fields.push({ name: FILES_NAME, value: filesValue, inline: false });
  return {
    username: "Gatepost",
    embeds: [
      {
        title,
        ...(content.link ? { url: content.link } : {}),
        fields,
        footer: { text: footer },
        timestamp: content.receivedAt,
      },
    ],
    allowed_mentions: { parse: [] },
  };
}

const FILES_NAME = "Files";

/** The files as `[name](link)` lines within one field value's limit, or "" when none has a link. */
function discordFiles(content: MessageContent): string {
  const lines: string[] = [];
  let length = 0;
  for (const file of content.files) {
    if (!file.url) continue;
    const line = `[${truncateEscaped(file.name, 160, escapeDiscord).text}](${file.url}) (${file.size})`;
    if (length + line.length + 1 > DISCORD_LIMITS.fieldValue - 40) {
      lines.push(`${ELLIPSIS} more files in the console`);
      break;
    }
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join("\n");
}

/** Posts the message. 429 Retry-After and 404/410 (webhook deleted) are reported as such. Never throws. */
export function sendDiscord(
  url: string,
  content: MessageContent,
  options: { timeoutMs?: number; fetch?: typeof fetch } = {},
): Promise<AttemptRecord> {
  return postChatMessage(url, buildDiscordMessage(content), options);
}

/** The Discord kind's sending half (its settings: spec.ts). */
export const sender = messageSender("discord", "DISCORD_WEBHOOK_URL", sendDiscord);

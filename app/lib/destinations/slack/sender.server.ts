import { postChatMessage, type AttemptRecord } from "~/lib/sending/attempt.server";
import { ELLIPSIS, truncateEscaped, type MessageContent } from "~/lib/sending/message-content.server";
import { countOf } from "~/lib/text/count";
import { messageSender } from "~/lib/destinations/sender.server";

// A Slack Block Kit message: submitted text goes in `plain_text`, since mrkdwn cannot escape * _ ~ ` (ADR 026).

/** Block Kit limits (api.slack.com/reference/block-kit/blocks): header 150, section text 3000, 50 blocks. */
export const SLACK_LIMITS = { header: 150, sectionText: 3000, blocks: 50, fallbackText: 3000, actions: 25, buttonText: 75 } as const;

export interface SlackMessage {
  text: string;
  blocks: Array<Record<string, unknown>>;
  unfurl_links: false;
  unfurl_media: false;
}

/** Slack's own escaping for mrkdwn and text: only these three characters are control characters. */
export function escapeSlack(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** The Block Kit payload for one submission. Pure. */
export function buildSlackMessage(content: MessageContent): SlackMessage {
  const more = content.link ? ` <${content.link}|full submission>` : " (full text in the console)";
  const cutNote = content.link ? " (cut: the full text is in Gatepost, linked below)" : " (cut: the full text is in the console)";
  const header = truncateEscaped(`New submission: ${content.formTitle}`, SLACK_LIMITS.header).text;
  const linked = content.files.filter((file) => file.url !== null);
  const fieldSlots = SLACK_LIMITS.blocks - 3 - (linked.length > 0 ? 1 : 0);
  const shown = content.rows.length > fieldSlots ? content.rows.slice(0, fieldSlots - 1) : content.rows;
  const sections: Array<Record<string, unknown>> = shown.map((row) => {
    const label = truncateEscaped(row.label, 200).text;
    const room = SLACK_LIMITS.sectionText - label.length - 1 - cutNote.length;
    const value = truncateEscaped(row.value, room);
    return { type: "section", text: { type: "plain_text", text: `${label}\n${value.text}${value.cut ? cutNote : ""}`, emoji: false } };
  });
  if (shown.length < content.rows.length) {
    const hidden = content.rows.length - shown.length;
    sections.push({
      type: "section",
      text: { type: "mrkdwn", text: `${ELLIPSIS} ${countOf(hidden, "more field", "more fields")}:${more}` },
    });
  }
  const reference = `Reference \`${escapeSlack(content.submissionId)}\``;
  const context = content.link ? `${reference} · <${content.link}|Open in Gatepost>` : reference;
  // One button per linked file (Block Kit allows 25 in an actions block); the rest are in the console.
  const buttons = linked.slice(0, SLACK_LIMITS.actions).map((file, i) => ({
    type: "button",
    action_id: `gatepost-file-${i}`,
    text: { type: "plain_text", text: truncateEscaped(`Download ${file.name}`, SLACK_LIMITS.buttonText).text, emoji: false },
    url: file.url,
  }));
  return {
    text: truncateEscaped(`New submission: ${content.formTitle}`, SLACK_LIMITS.fallbackText, escapeSlack).text,
    blocks: [
      { type: "header", text: { type: "plain_text", text: header, emoji: false } },
      ...sections,
      ...(buttons.length > 0 ? [{ type: "actions", elements: buttons }] : []),
      { type: "context", elements: [{ type: "mrkdwn", text: context }] },
    ],
    unfurl_links: false,
    unfurl_media: false,
  };
}

/** Posts the message. 429 Retry-After and 404/410 (webhook removed) are reported as such. Never throws. */
export function sendSlack(
  url: string,
  content: MessageContent,
  options: { timeoutMs?: number; fetch?: typeof fetch } = {},
): Promise<AttemptRecord> {
  return postChatMessage(url, buildSlackMessage(content), options);
}

/** The Slack kind's sending half (its settings: spec.ts). */
export const sender = messageSender("slack", "SLACK_WEBHOOK_URL", sendSlack);

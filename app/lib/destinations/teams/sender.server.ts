import { postChatMessage, type AttemptRecord } from "~/lib/sending/attempt.server";
import { ELLIPSIS, truncateEscaped, type MessageContent } from "~/lib/sending/message-content.server";
import { countOf } from "~/lib/text/count";
import { messageSender } from "~/lib/destinations/sender.server";

// An Adaptive Card (1.4) in the payload a Teams Workflows webhook takes ("Post to a channel when a
// webhook request is received": {type: "message", attachments: [card]}). What a person typed goes in
// TextRuns of a RichTextBlock, which Teams never reads as markdown (a TextBlock would); only "{{", which
// starts a DATE/TIME function even there, is broken with a zero-width space. Gatepost's own words are TextBlocks.

/** Workflows takes 28 KB a message; the card keeps a margin for the JSON around it. */
export const TEAMS_LIMITS = { bytes: 28_000, value: 4_000, title: 200, rows: 100, actions: 6 } as const;
export const ADAPTIVE_CARD = "application/vnd.microsoft.card.adaptive";

/** Typed text as a TextRun shows it: as typed, its DATE/TIME function braces broken. */
export function escapeTeams(text: string): string {
  return text.replaceAll("{{", "{\u200B{");
}

/** The Workflows payload for one submission within its limits: values share what the bytes allow. Pure. */
export function buildTeamsMessage(content: MessageContent): Record<string, unknown> {
  let perValue: number = TEAMS_LIMITS.value;
  for (;;) {
    const card = buildCard(content, perValue);
    const message = { type: "message", attachments: [{ contentType: ADAPTIVE_CARD, contentUrl: null, content: card }] };
    if (new TextEncoder().encode(JSON.stringify(message)).length <= TEAMS_LIMITS.bytes - 1_000 || perValue <= 40) return message;
    perValue = Math.floor(perValue / 2);
  }
}

const run = (text: string, extra: Record<string, unknown> = {}) => ({ type: "TextRun", text, ...extra });
const rich = (inlines: unknown[], extra: Record<string, unknown> = {}) => ({ type: "RichTextBlock", inlines, ...extra });

function buildCard(content: MessageContent, perValue: number): Record<string, unknown> {
  const more = content.link ? " (cut: the full submission is linked below)" : " (cut: the full text is in the console)";
  const shown = content.rows.length > TEAMS_LIMITS.rows ? content.rows.slice(0, TEAMS_LIMITS.rows - 1) : content.rows;
  const body: unknown[] = [
    rich([
      run(truncateEscaped(`New submission: ${content.formTitle}`, TEAMS_LIMITS.title, escapeTeams).text, {
        weight: "Bolder",
        size: "Medium",
      }),
    ]),
  ];
  for (const row of shown) {
    const value = truncateEscaped(row.value, perValue, escapeTeams);
    body.push(rich([run(truncateEscaped(row.label, 200, escapeTeams).text, { weight: "Bolder" })], { spacing: "Medium" }));
    body.push(rich([run(value.text), ...(value.cut ? [run(more, { isSubtle: true })] : [])], { spacing: "None" }));
  }
  if (shown.length < content.rows.length) {
    body.push(
      rich([
        run(`${ELLIPSIS} ${countOf(content.rows.length - shown.length, "more field", "more fields")} in Gatepost`, { isSubtle: true }),
      ]),
    );
  }
  const files = content.files.filter((file) => file.url !== null);
  if (files.length > 0) {
    body.push(rich([run("Files", { weight: "Bolder" })], { spacing: "Medium" }));
    for (const file of files.slice(0, TEAMS_LIMITS.rows)) {
      const link = { type: "Action.OpenUrl", url: file.url };
      body.push(
        rich([run(truncateEscaped(file.name, 160, escapeTeams).text, { selectAction: link }), run(` (${file.size})`)], { spacing: "None" }),
      );
    }
  }
  body.push(rich([run(`Reference ${content.submissionId}`, { isSubtle: true })], { spacing: "Medium" }));
  return {
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    type: "AdaptiveCard",
    version: "1.4",
    body,
    ...(content.link ? { actions: [{ type: "Action.OpenUrl", title: "Open in Gatepost", url: content.link }] } : {}),
    msteams: { width: "Full" },
  };
}

/** Posts the card. 429 Retry-After and 404/410 (workflow deleted) are reported as such. Never throws. */
export function sendTeams(
  url: string,
  content: MessageContent,
  options: { timeoutMs?: number; fetch?: typeof fetch } = {},
): Promise<AttemptRecord> {
  return postChatMessage(url, buildTeamsMessage(content), options);
}

/** The Teams kind's sending half (its settings: spec.ts). */
export const sender = messageSender("teams", "TEAMS_WEBHOOK_URL", sendTeams);

// How the local sink shows a Microsoft Teams message (the Adaptive Card a Workflows webhook posts), as
// the channel would; POST /teams on the sink takes what a Workflows webhook takes and answers 202. A
// TextRun is shown as typed; a card that is not an Adaptive Card in a message is refused, as the flow
// would fail.

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** One card element as the channel shows it: a RichTextBlock's runs (a linked run as "text (url)"), a TextBlock's text. */
function readElement(element) {
  if (element.type === "RichTextBlock")
    return (element.inlines ?? [])
      .map((inline) => (inline.selectAction?.url ? `${inline.text} (${inline.selectAction.url})` : inline.text))
      .join("");
  if (element.type === "TextBlock") return element.text ?? "";
  return "";
}

export const sink = {
  kind: "teams",
  /** `npm start`: the settings (by suffix) pointing a form here while `switch`, its on-switch, is unset. */
  local: { switch: "TEAMS_WEBHOOK_URL", settings: ({ origin }) => ({ TEAMS_WEBHOOK_URL: `${origin}/teams` }) },
  shows: "Microsoft Teams messages",
  path: "/teams",
  product: "Microsoft Teams",
  answer: { status: 202, body: "" },
  /** A Workflows webhook body as the channel would show it, or { refused } with why the flow would fail. */
  describe(payload) {
    const attachment = payload.attachments?.[0];
    const card = attachment?.content;
    if (
      payload.type !== "message" ||
      attachment?.contentType !== "application/vnd.microsoft.card.adaptive" ||
      card?.type !== "AdaptiveCard"
    )
      return { refused: "not a message with an Adaptive Card attachment, as a Teams Workflows webhook takes" };
    const [first, ...rest] = (card.body ?? []).map(readElement);
    const lines = rest;
    for (const action of card.actions ?? []) lines.push(`[${action.title}] (${action.url})`);
    const text = lines.join("\n").trimEnd();
    return { kind: "teams", at: new Date().toISOString(), title: first ?? "", text, reference: UUID.exec(text)?.[0] ?? null, payload };
  },
};

// How the local sink shows a Slack message (its header, fields, link buttons and context), as the channel
// would; POST /slack on the sink takes what Slack's incoming webhooks take.

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** Slack mrkdwn as it reads on screen: links as "text (url)", *bold* plain, entities decoded last. */
function readSlack(text) {
  return text
    .replace(/<([^<>|]+)\|([^<>]+)>/g, "$2 ($1)")
    .replace(/^\*([^*\n]+)\*$/gm, "$1")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
}

export const sink = {
  kind: "slack",
  /** `npm start`: the settings (by suffix) pointing a form here while `switch`, its on-switch, is unset. */
  local: { switch: "SLACK_WEBHOOK_URL", settings: ({ origin }) => ({ SLACK_WEBHOOK_URL: `${origin}/slack` }) },
  shows: "Slack messages",
  path: "/slack",
  product: "Slack",
  answer: { status: 200, body: "ok" },
  /** A Slack webhook body as the channel would show it. */
  describe(payload) {
    const lines = [];
    let title = "";
    for (const block of payload.blocks ?? []) {
      if (block.type === "header") title = block.text?.text ?? "";
      else if (block.type === "section") lines.push(readSlack(block.text?.text ?? ""), "");
      else if (block.type === "actions") lines.push(...(block.elements ?? []).map((e) => `[${e.text?.text ?? ""}] (${e.url ?? ""})`), "");
      else if (block.type === "context") lines.push(...(block.elements ?? []).map((e) => readSlack(e.text ?? "")));
    }
    if (!title) title = readSlack(payload.text ?? "");
    const text = lines.join("\n").trimEnd();
    return { kind: "slack", at: new Date().toISOString(), title, text, reference: UUID.exec(text)?.[0] ?? null, payload };
  },
};

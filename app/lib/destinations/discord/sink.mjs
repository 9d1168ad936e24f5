// How the local sink shows a Discord message (an embed's title, fields and footer), as the channel would;
// POST /discord on the sink takes what Discord's webhooks take.

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** Discord markdown as it reads on screen: backslash escapes shown as the character, [text](url) as "text (url)". */
function readDiscord(text) {
  return text.replace(/(?<!\\)\[([^\]]+)\]\(([^)]+)\)/g, "$1 ($2)").replace(/\\(.)/g, "$1");
}

export const sink = {
  kind: "discord",
  /** `npm start`: the settings (by suffix) pointing a form here while `switch`, its on-switch, is unset. */
  local: { switch: "DISCORD_WEBHOOK_URL", settings: ({ origin }) => ({ DISCORD_WEBHOOK_URL: `${origin}/discord` }) },
  shows: "Discord messages",
  path: "/discord",
  product: "Discord",
  answer: { status: 204, body: "" },
  /** A Discord webhook body as the channel would show it. */
  describe(payload) {
    const lines = [];
    const embed = payload.embeds?.[0] ?? {};
    const title = readDiscord(embed.title ?? payload.content ?? "");
    if (embed.url) lines.push(`(${embed.url})`, "");
    for (const field of embed.fields ?? []) lines.push(readDiscord(field.name), readDiscord(field.value), "");
    if (embed.footer?.text) lines.push(readDiscord(embed.footer.text));
    const text = lines.join("\n").trimEnd();
    return { kind: "discord", at: new Date().toISOString(), title, text, reference: UUID.exec(text)?.[0] ?? null, payload };
  },
};

// How the local sink shows a Google Chat message (its card's header, paragraphs and buttons), as the
// space would; POST /googlechat on the sink takes what Chat's incoming webhooks take. A card's widget
// text is Chat's small HTML: a tag Chat does not know, or a bare < or &, is refused as Chat would not
// show it as typed.

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const TAGS = /<\/?(b|i|u|s|strike|font|br|a)(\s+[a-z]+="[^"<>]*")*\s*\/?>/g;
const ENTITIES = { lt: "<", gt: ">", amp: "&", quot: '"' };

/** A widget's HTML as the space shows it (links as "text (url)"); null for what Chat would not show as typed. */
export function readGoogleChatHtml(html) {
  const text = html
    .replace(/<a href="([^"]*)">([^<]*)<\/a>/g, "$2 ($1)")
    .replace(/<br\s*\/?>/g, "\n")
    .replace(TAGS, "");
  if (/[<>]/.test(text) || /&(?!(lt|gt|amp|quot|#\d{1,7});)/.test(text)) return null;
  return text.replace(/&(lt|gt|amp|quot|#\d{1,7});/g, (_, name) =>
    name[0] === "#" ? String.fromCodePoint(Number(name.slice(1))) : ENTITIES[name],
  );
}

export const sink = {
  kind: "googlechat",
  /** `npm start`: the settings (by suffix) pointing a form here while `switch`, its on-switch, is unset. */
  local: { switch: "GOOGLE_CHAT_WEBHOOK_URL", settings: ({ origin }) => ({ GOOGLE_CHAT_WEBHOOK_URL: `${origin}/googlechat` }) },
  shows: "Google Chat messages",
  path: "/googlechat",
  product: "Google Chat",
  answer: { status: 200, body: JSON.stringify({ name: "spaces/LOCAL/messages/local" }) },
  /** A Chat webhook body as the space would show it, or { refused } with why Chat would not. */
  describe(payload) {
    const card = payload.cardsV2?.[0]?.card ?? {};
    const lines = [];
    if (card.header?.subtitle) lines.push(card.header.subtitle, "");
    for (const section of card.sections ?? []) {
      for (const widget of section.widgets ?? []) {
        const read = widget.textParagraph ? readGoogleChatHtml(widget.textParagraph.text ?? "") : "";
        if (read === null) return { refused: "a paragraph is not Chat's HTML (a bare <, > or &): it would not show as typed" };
        if (widget.textParagraph) lines.push(read, "");
        for (const button of widget.buttonList?.buttons ?? []) lines.push(`[${button.text}] (${button.onClick?.openLink?.url ?? ""})`);
      }
    }
    const text = lines.join("\n").trimEnd();
    const title = card.header?.title ?? payload.fallbackText ?? "";
    return { kind: "googlechat", at: new Date().toISOString(), title, text, reference: UUID.exec(text)?.[0] ?? null, payload };
  },
};

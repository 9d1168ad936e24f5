// The English words every page may show around its content: the skip link and the visitors' footer.
// Every page's layout falls back to them (the console, an unknown address), so they live apart from
// the rest of en.ts, which no page ships.

export const EN_FRAME = {
  skipLink: "Skip to content",
  footer: "Protected by Cloudflare Turnstile: nothing you send is kept until the check passes. Powered by Gatepost.",
};

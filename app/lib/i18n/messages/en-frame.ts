// The English skip link and footer every layout falls back to, apart from en.ts, which no page ships.

export const EN_FRAME = {
  skipLink: "Skip to content",
  footer: "Protected by Cloudflare Turnstile: nothing you send is kept until the check passes. Powered by Gatepost.",
};

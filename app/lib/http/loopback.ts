// Which URLs may carry Turnstile traffic. The stand-in provider only ever runs on loopback over plain
// http, so "https, or http to a loopback host" lets tests use it while a deployed site cannot be
// pointed at any plain-http verifier.

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (host === "::1") return true;
  return /^127(\.\d{1,3}){3}$/.test(host);
}

/** True for https URLs and for http URLs to a loopback host; false for anything else or junk. */
export function isAllowedProviderUrl(raw: string): boolean {
  // Asked on every post about the one configured URL: its answer is kept rather than parsed per post.
  if (raw === lastAsked.raw) return lastAsked.allowed;
  let allowed = false;
  try {
    const url = new URL(raw);
    allowed = url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname));
  } catch {
    allowed = false;
  }
  lastAsked = { raw, allowed };
  return allowed;
}
let lastAsked = { raw: "", allowed: false };

import { rememberLast } from "~/lib/platform/remember-last";

// Which URLs may carry Turnstile traffic. The stand-in provider only ever runs on loopback over plain
// http, so "https, or http to a loopback host" lets tests use it while a deployed site cannot be
// pointed at any plain-http verifier.

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (host === "::1") return true;
  return /^127(\.\d{1,3}){3}$/.test(host);
}

// Asked on every post about the one configured verify URL (remember-last.ts).
/** True for https URLs and for http URLs to a loopback host; false for anything else or junk. */
export const isAllowedProviderUrl = rememberLast((raw: string): boolean => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && isLoopbackHost(url.hostname);
});

import { rememberLast } from "~/lib/platform/remember-last";

// The stand-in provider runs on loopback over plain http only, so "https, or http to loopback" serves tests while
// a deployed site cannot be pointed at a plain-http verifier.

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (host === "::1") return true;
  return /^127(\.\d{1,3}){3}$/.test(host);
}

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

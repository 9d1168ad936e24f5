import { z } from "zod";
import { destinationHostProblem } from "~/lib/destinations/public-host";

// The rules for the values behind destinations (addresses, URLs, on/off) that each kind's <kind>/spec.ts uses.
// Client-safe: the console shows the same checks.

const EmailSchema = z.email({ pattern: z.regexes.html5Email });

/** One address as HTML's <input type=email> accepts it: no spaces, no CR/LF, no angle brackets. */
export function isEmailAddress(value: string): boolean {
  return value.length <= 254 && EmailSchema.safeParse(value).success;
}

/** "a@x.org, b@x.org" or space-separated; null when any entry is not an address. */
export function parseEmailList(value: string): string[] | null {
  const entries = value.split(/[\s,;]+/).filter(Boolean);
  if (entries.length === 0 || entries.length > 50 || !entries.every(isEmailAddress)) return null;
  return [...new Set(entries.map((entry) => entry.toLowerCase()))];
}

/** Why a URL Gatepost POSTs to cannot be used (https to a public host; loopback only with the dev switch); null when it can. */
export function webhookUrlProblem(raw: string, allowLoopbackHttp: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not a URL";
  }
  if (url.username || url.password) return "must not carry a user name or password";
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be an https URL";
  const host = destinationHostProblem(url.hostname);
  if (host) {
    if (allowLoopbackHttp && host.loopback) return null;
    return `must not reach inside: ${host.reason}${host.loopback ? " (ALLOW_LOOPBACK_WEBHOOKS allows it in local development only)" : ""}`;
  }
  return url.protocol === "https:" ? null : "must be an https URL";
}

/** True when webhookUrlProblem finds none. */
export function isAllowedWebhookUrl(raw: string, allowLoopbackHttp: boolean): boolean {
  return webhookUrlProblem(raw, allowLoopbackHttp) === null;
}

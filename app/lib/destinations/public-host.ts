import ipaddr from "ipaddr.js";

// The Worker POSTs to destination URLs, so a host inside (loopback, private, metadata) must never be one (ADR 088).
// WHATWG parsing already writes every IPv4 spelling canonically; any IP literal is refused: receivers are named by DNS.

/** Names that never lead to the public internet (RFC 6761, RFC 8375, ICANN's .internal, mDNS). */
const INSIDE_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa", ".localdomain"];

export interface HostProblem {
  reason: string;
  loopback: boolean;
}

/** Why `hostname` (a URL's, as parsed) may not receive deliveries; null for a public DNS name. */
export function destinationHostProblem(hostname: string): HostProblem | null {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.+$/, "");
  if (host === "") return { reason: "has no host", loopback: false };
  if (ipaddr.isValid(host)) {
    // process() turns an IPv4-mapped IPv6 address (::ffff:127.0.0.1) into the IPv4 address it carries.
    const address = ipaddr.process(host);
    const range = address.range();
    return { reason: `${address.toString()} is an IP address (${range}), not a host name`, loopback: range === "loopback" };
  }
  if (host === "localhost" || host.endsWith(".localhost")) return { reason: `${host} is this computer`, loopback: true };
  if (INSIDE_SUFFIXES.some((suffix) => host.endsWith(suffix))) return { reason: `${host} is a local network name`, loopback: false };
  if (!host.includes(".")) return { reason: `${host} is not a public host name (it has one label)`, loopback: false };
  return null;
}

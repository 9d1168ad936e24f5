import ipaddr from "ipaddr.js";

// Destination URLs (every kind that POSTs) come from the console or the environment, and the Worker POSTs to
// them: a host inside (loopback, a private network, a cloud's metadata address) must never be one
// (docs/decisions/088-destinations-cannot-reach-inside.md). The hostname is the one WHATWG URL parsing
// gives, which already writes every IPv4 spelling (2130706433, 0177.0.0.1, 0x7f.1, 127.1) as
// 127.0.0.1 and IPv6 in brackets; ipaddr.js names the range of an address, IPv4-mapped IPv6 included.
// Any IP literal is refused, public ones too: receivers are named by DNS, and a name is what TLS checks.

/** Names that never lead to the public internet (RFC 6761, RFC 8375, ICANN's .internal, mDNS). */
const INSIDE_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa", ".localdomain"];

export interface HostProblem {
  /** Why, for the person who set it: "127.0.0.1 is an IP address (loopback)". */
  reason: string;
  /** The host is this computer: the local-development switch (ALLOW_LOOPBACK_WEBHOOKS) may allow it. */
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

// Who is asking, as far as limits go: the client's address and the groups it is counted in.

/** The visitor's IP. Only Cloudflare's own header is trusted; X-Forwarded-For is client-controlled. */
export function clientIp(request: Request): string | null {
  return request.headers.get("CF-Connecting-IP");
}

/** The subject an IP is counted under: IPv4 as is, IPv6 by its /64, which one host can rotate inside. */
export function ipSubject(ip: string | null): string {
  if (!ip) return "unknown";
  if (!ip.includes(":")) return ip;
  const [head, tail = ""] = ip.toLowerCase().split("::");
  const headParts = head ? head.split(":") : [];
  const tailParts = tail ? tail.split(":") : [];
  const missing = Math.max(0, 8 - headParts.length - tailParts.length);
  const groups = ip.includes("::") ? [...headParts, ...Array(missing).fill("0"), ...tailParts] : headParts;
  return `${groups
    .slice(0, 4)
    .map((g) => (parseInt(g, 16) || 0).toString(16))
    .join(":")}::/64`;
}

/** An IPv6 address's /48 ("2001:db8:1::/48"), or null for IPv4 and junk. */
export function ipv6Prefix48(ip: string | null): string | null {
  if (!ip || !ip.includes(":")) return null;
  const groups = ipSubject(ip)
    .replace(/::\/64$/, "")
    .split(":");
  return groups.length === 4 ? `${groups.slice(0, 3).join(":")}::/48` : null;
}

/** The client's network: IPv6 by its /48 (one customer's, with /64s to rotate), IPv4 as itself. */
export function networkSubject(ip: string | null): string {
  return ipv6Prefix48(ip) ?? ipSubject(ip);
}

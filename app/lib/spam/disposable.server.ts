import DOMAINS from "disposable-email-domains/index.json";
import WILDCARDS from "disposable-email-domains/wildcard.json";

// Disposable address domains from a kept list (disposable-email-domains, pinned in package.json;
// docs/decisions/125). The list ships sorted, so a look-up is a binary search over the array as
// imported: no Set of 120,000 names is built in the request that first asks. Server-only: it is
// ~2 MB of JSON the browser never needs.

const SORTED: readonly string[] = DOMAINS;
const WILDCARD: ReadonlySet<string> = new Set(WILDCARDS);

function isListed(domain: string): boolean {
  let low = 0;
  let high = SORTED.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const name = SORTED[mid]!;
    if (name === domain) return true;
    if (name < domain) low = mid + 1;
    else high = mid - 1;
  }
  return false;
}

/** Whether `address`'s domain, or a domain it sits under, is a disposable mail provider's. */
export function isDisposableAddress(address: string): boolean {
  const at = address.lastIndexOf("@");
  if (at < 0) return false;
  const labels = address
    .slice(at + 1)
    .trim()
    .toLowerCase()
    .replace(/\.$/, "")
    .split(".");
  // From the full domain up to its last two labels: mail.mailinator.com is mailinator.com's.
  for (let i = 0; i + 2 <= labels.length; i++) {
    const domain = labels.slice(i).join(".");
    if (isListed(domain) || WILDCARD.has(domain)) return true;
  }
  return false;
}

// Client-safe: the form registry's checks and the settings parser share one idea of an origin.

/** True for exactly `scheme://host[:port]` with http or https: no path, no trailing slash, no wildcard. */
export function isExactOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    // URL keeps "*" in a hostname, and a CSP source (frame-ancestors) would read it as a wildcard.
    return url.origin === value && (url.protocol === "https:" || url.protocol === "http:") && !url.hostname.includes("*");
  } catch {
    return false;
  }
}

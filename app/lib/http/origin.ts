// Client-safe: the form registry's checks and the settings parser share one idea of an origin.

/** True for exactly `scheme://host[:port]` with http or https: no path, no trailing slash, no wildcard. */
export function isExactOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return url.origin === value && (url.protocol === "https:" || url.protocol === "http:");
  } catch {
    return false;
  }
}

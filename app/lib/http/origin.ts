// Client-safe: the form registry's checks, the settings parser, the Embed page and every header that
// names a site (CSP frame-ancestors, Access-Control-Allow-Origin) share one idea of an origin (ADR 108).

/** An origin taken apart: what a header naming it is rebuilt from, never the text as typed. */
export interface ExactOrigin {
  scheme: "http" | "https";
  host: string;
  port: number | null;
}

const SHAPE = /^(https?):\/\/([a-z0-9.-]{1,253}|\[[0-9a-f:.]{2,45}\])(?::([0-9]{1,5}))?$/;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Exactly `scheme://host[:port]` (http, https) as browsers send it: lower case, no default port, path or syntax characters. Never throws. */
export function parseOrigin(value: string): ExactOrigin | null {
  const match = SHAPE.exec(value);
  if (!match) return null;
  const [, scheme, host, port] = match;
  if (!host.startsWith("[") && !host.split(".").every((label) => LABEL.test(label))) return null;
  try {
    if (new URL(value).origin !== value) return null;
  } catch {
    return null;
  }
  return { scheme: scheme as ExactOrigin["scheme"], host, port: port === undefined ? null : Number(port) };
}

/** The origin's text, built from its parts. */
export function formatOrigin({ scheme, host, port }: ExactOrigin): string {
  return `${scheme}://${host}${port === null ? "" : `:${port}`}`;
}

/** True for exactly `scheme://host[:port]` (parseOrigin). */
export function isExactOrigin(value: string): boolean {
  return parseOrigin(value) !== null;
}

/** The exact origins of `values`, each rebuilt from its parts, de-duplicated; anything else is dropped. */
export function exactOrigins(values: readonly string[]): string[] {
  const origins = values.map(parseOrigin).filter((origin): origin is ExactOrigin => origin !== null);
  return [...new Set(origins.map(formatOrigin))];
}

/** `candidate` rebuilt from its parts when it is exactly one of `allowed`, else null. Never throws. */
export function matchOrigin(candidate: string | null, allowed: readonly string[]): string | null {
  const parsed = candidate === null ? null : parseOrigin(candidate);
  if (!parsed) return null;
  const origin = formatOrigin(parsed);
  return exactOrigins(allowed).includes(origin) ? origin : null;
}

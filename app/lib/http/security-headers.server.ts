import { encodeBase64 } from "~/lib/crypto/base64";
import { isLoopbackHost } from "~/lib/http/loopback";
import { exactOrigins } from "~/lib/http/origin";
import { rememberLast } from "~/lib/platform/remember-last";

// Security headers for every HTML response (ADR 006): a nonce-based CSP with 'strict-dynamic', so scripts made
// at runtime (the Turnstile loader) are trusted through Remix's nonced ones and no host allowlist is kept.

export const TURNSTILE_ORIGIN = "https://challenges.cloudflare.com";

/** Set by a route whose page may be framed: the exact origins, which entry.server.tsx turns into frame-ancestors. */
export const FRAME_ANCESTORS_HEADER = "Gatepost-Frame-Ancestors";

const DISABLED_FEATURES = [
  "accelerometer",
  "autoplay",
  "camera",
  "display-capture",
  "geolocation",
  "gyroscope",
  "magnetometer",
  "microphone",
  "midi",
  "payment",
  "usb",
  "xr-spatial-tracking",
];

export const PERMISSIONS_POLICY = DISABLED_FEATURES.map((feature) => `${feature}=()`).join(", ");
export const HSTS = "max-age=63072000; includeSubDomains";

/** A fresh base64 nonce of 128 random bits. Never throws. */
export function createNonce(): string {
  return encodeBase64(crypto.getRandomValues(new Uint8Array(16)));
}

/** The loopback stand-in's script origin (tests, `start:offline`), else null: production trusts only Cloudflare's. */
export function standinScriptOrigin(scriptUrl: string | undefined): string | null {
  return scriptUrl ? loopbackScriptOrigin(scriptUrl) : null;
}
const loopbackScriptOrigin = rememberLast((scriptUrl: string): string | null => {
  try {
    const url = new URL(scriptUrl);
    return url.protocol === "http:" && isLoopbackHost(url.hostname) ? url.origin : null;
  } catch {
    return null;
  }
});

export interface SiteLook {
  brandStyle?: boolean;
  logoOrigin?: string | null;
}

/** The CSP for one response: a brand colour adds a nonced <style>, a logo its origin, `frameAncestors` who may frame it. Never throws. */
export function buildContentSecurityPolicy(
  nonce: string,
  scriptUrl?: string,
  look: SiteLook = {},
  frameAncestors: readonly string[] = [],
): string {
  const ancestors = exactOrigins(frameAncestors);
  const scriptSources = [`'nonce-${nonce}'`, "'strict-dynamic'", TURNSTILE_ORIGIN];
  const standin = standinScriptOrigin(scriptUrl);
  if (standin) scriptSources.push(standin);
  return [
    "default-src 'self'",
    `script-src ${scriptSources.join(" ")}`,
    ...(look.brandStyle ? [`style-src 'self' 'nonce-${nonce}'`] : []),
    ...(look.logoOrigin ? [`img-src 'self' ${look.logoOrigin}`] : []),
    `frame-src ${TURNSTILE_ORIGIN}`,
    "object-src 'none'",
    "base-uri 'none'",
    `frame-ancestors ${ancestors.length > 0 ? ancestors.join(" ") : "'none'"}`,
    "form-action 'self'",
  ].join("; ");
}

/** Sets the CSP and the other hardening headers on `headers` (mutates it). Never throws. */
export function applySecurityHeaders(headers: Headers, { nonce, scriptUrl, look }: { nonce: string; scriptUrl?: string; look?: SiteLook }) {
  const frameAncestors = (headers.get(FRAME_ANCESTORS_HEADER) ?? "").split(" ").filter(Boolean);
  headers.delete(FRAME_ANCESTORS_HEADER);
  headers.set("Content-Security-Policy", buildContentSecurityPolicy(nonce, scriptUrl, look, frameAncestors));
  headers.set("Strict-Transport-Security", HSTS);
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("Referrer-Policy", "strict-origin-when-cross-origin");
  headers.set("Permissions-Policy", PERMISSIONS_POLICY);
  return headers;
}

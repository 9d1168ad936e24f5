import { encodeBase64 } from "~/lib/crypto/base64";
import { isLoopbackHost } from "~/lib/http/loopback";

// Security headers for every HTML response (ADR 006). The CSP is nonce-based with 'strict-dynamic':
// Remix's inline scripts carry the per-request nonce, and scripts they create at runtime (the
// Turnstile loader) are trusted through them, so no host allowlist has to track our asset URLs.

export const TURNSTILE_ORIGIN = "https://challenges.cloudflare.com";

/** Features no Gatepost page uses. An empty allowlist turns each off for the page and its frames. */
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
  if (!scriptUrl) return null;
  try {
    const url = new URL(scriptUrl);
    return url.protocol === "http:" && isLoopbackHost(url.hostname) ? url.origin : null;
  } catch {
    return null;
  }
}

/** What a site's look adds to the CSP: the nonced <style> of its brand colour, its logo's origin. */
export interface SiteLook {
  brandStyle?: boolean;
  logoOrigin?: string | null;
}

/** The CSP for one response; a brand colour adds only the nonced <style>, a logo only its origin. Never throws. */
export function buildContentSecurityPolicy(nonce: string, scriptUrl?: string, look: SiteLook = {}): string {
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
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join("; ");
}

/** Sets the CSP and the other hardening headers on `headers` (mutates it). Never throws. */
export function applySecurityHeaders(headers: Headers, { nonce, scriptUrl, look }: { nonce: string; scriptUrl?: string; look?: SiteLook }) {
  headers.set("Content-Security-Policy", buildContentSecurityPolicy(nonce, scriptUrl, look));
  headers.set("Strict-Transport-Security", HSTS);
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("Referrer-Policy", "strict-origin-when-cross-origin");
  headers.set("Permissions-Policy", PERMISSIONS_POLICY);
  return headers;
}

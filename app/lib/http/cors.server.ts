import { matchOrigin } from "~/lib/http/origin";

// The public API's origin check and CORS: only origins a form lists, never credentials, always
// `Vary: Origin` so caches keep one copy per origin. An allowed origin is echoed rebuilt from its
// parsed parts, never as the request or a stored list spelled it (ADR 108).

export type OriginCheck =
  | { ok: true; /** The caller's origin when it is another allowed site, for CORS headers. */ corsOrigin: string | null }
  | { ok: false; code: "origin_not_allowed" };

const ALLOWED_REQUEST_HEADERS = "Content-Type, Idempotency-Key, Accept";
const EXPOSED_HEADERS = "Retry-After, RateLimit, RateLimit-Policy, Gatepost-Error-Code, Idempotent-Replayed";
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** Allows same-origin posts, posts without Origin (servers; browsers send it cross-origin) and `allowed`. */
export function checkOrigin(request: Request, allowed: readonly string[]): OriginCheck {
  const origin = request.headers.get("Origin");
  if (origin === null) return { ok: true, corsOrigin: null };
  if (origin === new URL(request.url).origin) return { ok: true, corsOrigin: null };
  const corsOrigin = matchOrigin(origin, allowed);
  return corsOrigin ? { ok: true, corsOrigin } : { ok: false, code: "origin_not_allowed" };
}

/** CORS headers for an actual response. Without an allowed origin only `Vary: Origin` is set. */
export function corsHeaders(corsOrigin: string | null): Headers {
  const headers = new Headers({ Vary: "Origin" });
  if (corsOrigin) {
    headers.set("Access-Control-Allow-Origin", corsOrigin);
    headers.set("Access-Control-Expose-Headers", EXPOSED_HEADERS);
  }
  return headers;
}

/** Answers an OPTIONS preflight: 204 for an allowed origin asking for POST, otherwise null (refuse). */
export function answerPreflight(request: Request, allowed: readonly string[]): Response | null {
  const origin = matchOrigin(request.headers.get("Origin"), allowed);
  const method = request.headers.get("Access-Control-Request-Method");
  if (!origin || method?.toUpperCase() !== "POST") return null;
  const headers = corsHeaders(origin);
  headers.set("Access-Control-Allow-Methods", "POST");
  headers.set("Access-Control-Allow-Headers", ALLOWED_REQUEST_HEADERS);
  headers.set("Access-Control-Max-Age", String(PREFLIGHT_MAX_AGE_SECONDS));
  headers.append("Vary", "Access-Control-Request-Method, Access-Control-Request-Headers");
  return new Response(null, { status: 204, headers });
}

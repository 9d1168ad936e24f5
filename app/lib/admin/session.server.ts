import { decodeBase64Url, encodeBase64Url } from "../crypto/base64url";
import { isLoopbackHost } from "../http/loopback";
import { hmacKey } from "../crypto/hmac-key.server";

// Stateless admin sessions: a cookie holding a small JSON payload and its HMAC-SHA256 signature
// (docs/decisions/004-admin-sessions.md). Nothing is stored server-side; a session ends when it
// expires (12 h), when the person signs out, when SESSION_SECRET changes, or when the password hash
// of its role changes (the payload carries a fingerprint of that hash).

export const SESSION_COOKIE = "gp_admin_session";
export const SESSION_TTL_SECONDS = 12 * 60 * 60;
export const MIN_SECRET_LENGTH = 32;

export type Role = "admin" | "viewer";

export interface SessionPayload {
  /** Who: "password:admin", "password:viewer". */
  sub: string;
  role: Role;
  /** Fingerprint of the role's password hash when the session was issued. */
  ver: string;
  iat: number;
  exp: number;
}

/** Secure everywhere except plain http to a loopback host (local development and tests). */
export function isSecureContext(request: Request): boolean {
  const url = new URL(request.url);
  return !(url.protocol === "http:" && isLoopbackHost(url.hostname));
}

// Path=/ rather than /admin: chosen when Remix's single fetch loaded /admin's data from /admin.data
// (ADR 004). It stays, because a narrower path would leave the cookies already issued for Path=/ in
// browsers, where sign-out (which clears this path) could no longer reach them.
function cookieAttributes(request: Request, maxAge: number): string {
  const secure = isSecureContext(request) ? "; Secure" : "";
  return `Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure}`;
}

/** A short fingerprint of a password hash, so rotating the hash ends the sessions it issued. */
export async function fingerprint(value: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`gatepost-session:${value}`));
  return encodeBase64Url(new Uint8Array(digest).slice(0, 12));
}

/** The Set-Cookie value that signs a person in for 12 hours. Throws only if Web Crypto is missing. */
export async function createSessionCookie(options: {
  request: Request;
  secret: string;
  sub: string;
  role: Role;
  ver: string;
  nowMs?: number;
}): Promise<string> {
  const iat = Math.floor((options.nowMs ?? Date.now()) / 1000);
  const payload: SessionPayload = { sub: options.sub, role: options.role, ver: options.ver, iat, exp: iat + SESSION_TTL_SECONDS };
  const body = encodeBase64Url(new TextEncoder().encode(JSON.stringify(payload)));
  const signature = await crypto.subtle.sign("HMAC", await hmacKey(options.secret), new TextEncoder().encode(body));
  return `${SESSION_COOKIE}=${body}.${encodeBase64Url(signature)}; ${cookieAttributes(options.request, SESSION_TTL_SECONDS)}`;
}

/** The Set-Cookie value that signs a person out. */
export function clearSessionCookie(request: Request): string {
  return `${SESSION_COOKIE}=; ${cookieAttributes(request, 0)}`;
}

function readCookie(request: Request, name: string): string | null {
  for (const part of (request.headers.get("Cookie") ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return null;
}

/** The verified payload of the request's session cookie, or null (missing, forged, expired or malformed). */
export async function readSession(request: Request, secret: string, nowMs = Date.now()): Promise<SessionPayload | null> {
  const raw = readCookie(request, SESSION_COOKIE);
  if (!raw || raw.length > 1024) return null;
  const [body, sig, extra] = raw.split(".");
  if (!body || !sig || extra !== undefined) return null;
  const signature = decodeBase64Url(sig);
  if (!signature) return null;
  // subtle.verify compares in constant time.
  const valid = await crypto.subtle.verify("HMAC", await hmacKey(secret), signature, new TextEncoder().encode(body));
  if (!valid) return null;
  try {
    const payload = JSON.parse(new TextDecoder().decode(decodeBase64Url(body) ?? new Uint8Array())) as SessionPayload;
    const now = Math.floor(nowMs / 1000);
    if (payload.role !== "admin" && payload.role !== "viewer") return null;
    if (typeof payload.exp !== "number" || payload.exp <= now || payload.iat > now + 60) return null;
    if (payload.exp - payload.iat > SESSION_TTL_SECONDS) return null;
    return payload;
  } catch {
    return null;
  }
}

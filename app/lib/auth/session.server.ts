import { createCookie, createSessionStorage, type Cookie, type SessionStorage } from "@remix-run/cloudflare";
import { z } from "zod";
import { encodeBase64Url } from "~/lib/crypto/base64";
import { sha256 } from "~/lib/crypto/digest";
import { deleteSession, insertSession, readSessionData, updateSession } from "~/lib/storage/admin-sessions.server";

// Server-side admin sessions (ADR 014): Remix's session storage over D1, only a signed random id in the cookie.

export const SESSION_COOKIE = "__Host-gp_admin_session";
export const SESSION_TTL_SECONDS = 12 * 60 * 60;

export type Role = "admin" | "viewer";

export const SessionDataSchema = z.object({
  sub: z.string().min(1).max(200),
  role: z.enum(["admin", "viewer"]),
  ver: z.string().min(1).max(100),
});
export type SessionData = z.infer<typeof SessionDataSchema>;

// `__Host-`: Secure, Path=/ and host-only, so no sibling subdomain can plant one.
/** The session id's cookie, signed with `secrets[0]`, verified with any; its parse never throws (a junk cookie is no cookie). */
export function adminSessionCookie(secrets: readonly string[]): Cookie {
  const cookie = createCookie(SESSION_COOKIE, {
    secrets: [...secrets],
    httpOnly: true,
    secure: true,
    sameSite: "lax",
    path: "/",
    maxAge: SESSION_TTL_SECONDS,
  });
  return {
    name: cookie.name,
    isSigned: cookie.isSigned,
    get expires() {
      return cookie.expires;
    },
    async parse(header, options) {
      try {
        return await cookie.parse(header, options);
      } catch {
        return null;
      }
    },
    serialize: (value, options) => cookie.serialize(value, options),
  };
}

/** Remix session storage over D1. `secrets[0]` signs new cookies; every entry verifies (rotation). */
export function adminSessionStorage(db: D1Database, secrets: readonly string[]): SessionStorage<SessionData> {
  return createSessionStorage<SessionData>({
    cookie: adminSessionCookie(secrets),
    async createData(data, expires) {
      const id = encodeBase64Url(crypto.getRandomValues(new Uint8Array(32)));
      const nowMs = Date.now();
      const expiresMs = expires?.getTime() ?? nowMs + SESSION_TTL_SECONDS * 1000;
      await insertSession(db, { id, data: JSON.stringify(data), nowMs, expiresMs });
      return id;
    },
    async readData(id) {
      if (typeof id !== "string" || id.length > 100) return null;
      const stored = await readSessionData(db, id, Date.now());
      if (stored === null) return null;
      try {
        const data = SessionDataSchema.safeParse(JSON.parse(stored));
        return data.success ? data.data : null;
      } catch {
        return null;
      }
    },
    async updateData(id, data, expires) {
      await updateSession(db, { id, data: JSON.stringify(data), expiresMs: expires?.getTime() ?? Date.now() + SESSION_TTL_SECONDS * 1000 });
    },
    async deleteData(id) {
      if (id) await deleteSession(db, id);
    },
  });
}

/** One `name=value` Cookie header per copy of the session cookie the request carries (often none). */
export function sessionCookieHeaders(request: Request): string[] {
  const found: string[] = [];
  for (const part of (request.headers.get("Cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) found.push(`${SESSION_COOKIE}=${part.slice(eq + 1).trim()}`);
  }
  return found;
}

/** The session cookie as a Cookie header when held exactly once; null for none or several (one could be planted). */
export function singleSessionCookieHeader(request: Request): string | null {
  const found = sessionCookieHeaders(request);
  return found.length === 1 ? found[0] : null;
}

/** A short fingerprint of a password hash, so rotating the hash ends the sessions it issued. */
export async function fingerprint(value: string): Promise<string> {
  return encodeBase64Url((await sha256(`gatepost-session:${value}`)).slice(0, 12));
}

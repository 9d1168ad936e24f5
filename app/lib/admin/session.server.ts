import { createCookie, createSessionStorage, type Cookie, type SessionStorage } from "@remix-run/cloudflare";
import { z } from "zod";
import { encodeBase64Url } from "../crypto/base64url";

// Server-side admin sessions (docs/decisions/014-server-side-admin-sessions.md): Remix's session
// storage with the data in D1's admin_sessions table and only a signed, random id in the cookie.
// A session ends when it expires (12 h), when the person signs out (the row goes, so a copied cookie
// stops working), when an admin signs everyone out, when every SESSION_SECRET that signed it is
// rotated away, or when the password hash of its role changes (the row keeps a fingerprint of it).

export const SESSION_COOKIE = "__Host-gp_admin_session";
export const SESSION_TTL_SECONDS = 12 * 60 * 60;

export type Role = "admin" | "viewer";

export const SessionDataSchema = z.object({
  /** Who: "password:admin", "password:viewer". */
  sub: z.string().min(1).max(200),
  role: z.enum(["admin", "viewer"]),
  /** Fingerprint of the role's password hash when the session was issued. */
  ver: z.string().min(1).max(100),
});
export type SessionData = z.infer<typeof SessionDataSchema>;

const SessionRowSchema = z.object({ data: z.string() });

// The cookie carries an id, never data: `__Host-` makes the browser refuse it unless it is Secure,
// Path=/ and host-only, so a sibling subdomain cannot plant one. Chromium keeps Secure cookies on
// http://localhost and 127.0.0.1, so local development needs no exception (tests/e2e/admin.test.ts).
// Path=/ also reaches the cookies ADR 004 issued there.
/**
 * The session id's cookie, signed with `secrets[0]` and verified with any of them. Its parse never
 * throws: Remix's unsign throws on a signature that is not base64, and a junk cookie is no cookie.
 */
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
      const now = Date.now();
      // Expired rows go with each sign-in, so the table never outgrows the sessions alive.
      await db.batch([
        db.prepare("DELETE FROM admin_sessions WHERE expires_at <= ?1").bind(now),
        db
          .prepare("INSERT INTO admin_sessions (id, data, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)")
          .bind(id, JSON.stringify(data), now, expires?.getTime() ?? now + SESSION_TTL_SECONDS * 1000),
      ]);
      return id;
    },
    async readData(id) {
      if (typeof id !== "string" || id.length > 100) return null;
      const row = await db.prepare("SELECT data FROM admin_sessions WHERE id = ?1 AND expires_at > ?2").bind(id, Date.now()).first();
      const parsed = SessionRowSchema.safeParse(row);
      if (!parsed.success) return null;
      try {
        const data = SessionDataSchema.safeParse(JSON.parse(parsed.data.data));
        return data.success ? data.data : null;
      } catch {
        return null;
      }
    },
    async updateData(id, data, expires) {
      await db
        .prepare("UPDATE admin_sessions SET data = ?2, expires_at = ?3 WHERE id = ?1")
        .bind(id, JSON.stringify(data), expires?.getTime() ?? Date.now() + SESSION_TTL_SECONDS * 1000)
        .run();
    },
    async deleteData(id) {
      if (!id) return;
      await db.prepare("DELETE FROM admin_sessions WHERE id = ?1").bind(id).run();
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

/**
 * The session cookie as a Cookie header when the request holds it exactly once; null when it holds
 * none or several (one could be planted, and which one a server picks is nobody's promise, so none counts).
 */
export function singleSessionCookieHeader(request: Request): string | null {
  const found = sessionCookieHeaders(request);
  return found.length === 1 ? found[0] : null;
}

/** Ends every password session at once ("sign out everywhere"). Returns how many ended. D1 errors throw. */
export async function deleteAllSessions(db: D1Database): Promise<number> {
  const result = await db.prepare("DELETE FROM admin_sessions").run();
  return result.meta.changes ?? 0;
}

/** A short fingerprint of a password hash, so rotating the hash ends the sessions it issued. */
export async function fingerprint(value: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`gatepost-session:${value}`));
  return encodeBase64Url(new Uint8Array(digest).slice(0, 12));
}

import type { AdminContext, AdminUser } from "~/lib/admin/auth.server";
import { verifyPassword } from "~/lib/crypto/password.server";
import { adminSessionStorage, deleteAllSessions, fingerprint, sessionCookieHeaders } from "~/lib/admin/session.server";
import { hitRateLimits, ipSubject, ipv6Prefix48, type RateRule } from "~/lib/http/rate-limit.server";
import { clientIp } from "~/lib/settings/turnstile.server";

// Password sign-in and sign-out. Every attempt is counted before any hashing (PBKDF2 is slow on
// purpose and must not be a free oracle or a CPU sink) against three budgets: the address (IPv6 by
// /64), its /48 for IPv6 (one site or customer usually holds a whole /48), and the whole site, so a
// guesser who rotates addresses still gets a bounded number of guesses (docs/decisions/014).

const WINDOW_SECONDS = 15 * 60;
export const LOGIN_RATE_RULE = { limit: 10, windowSeconds: WINDOW_SECONDS };
export const LOGIN_PREFIX48_RULE = { limit: 30, windowSeconds: WINDOW_SECONDS };
export const LOGIN_GLOBAL_RULE = { limit: 100, windowSeconds: WINDOW_SECONDS };

/** The sign-in budgets one attempt from `ip` counts against. */
export function signInRateRules(ip: string | null): RateRule[] {
  const rules: RateRule[] = [
    { key: `admin-login:ip:${ipSubject(ip)}`, ...LOGIN_RATE_RULE },
    { key: "admin-login:all", ...LOGIN_GLOBAL_RULE },
  ];
  const prefix = ipv6Prefix48(ip);
  if (prefix) rules.push({ key: `admin-login:ip48:${prefix}`, ...LOGIN_PREFIX48_RULE });
  return rules;
}

export type SignInResult =
  | { ok: true; user: AdminUser; cookie: string }
  | { ok: false; code: "admin_closed" | "admin_sign_in_failed" | "storage_unavailable" }
  | { ok: false; code: "admin_rate_limited"; retryAfterSeconds: number };

/** Checks a password against both roles' hashes, within the sign-in budgets. D1 failures come back as storage_unavailable. */
export async function signIn(request: Request, context: AdminContext, password: string, nowMs = Date.now()): Promise<SignInResult> {
  const config = context.settings.admin;
  const db = context.cloudflare.env.DB;
  if (!config.passwordSignIn) return { ok: false, code: "admin_closed" };
  const limit = await hitRateLimits(db, signInRateRules(clientIp(request)), nowMs);
  if (!limit.ok)
    return "code" in limit
      ? { ok: false, code: limit.code }
      : { ok: false, code: "admin_rate_limited", retryAfterSeconds: Math.max(1, limit.resetSeconds) };
  for (const [role, hash] of [
    ["admin", config.adminHash],
    ["viewer", config.viewerHash],
  ] as const) {
    if (hash && (await verifyPassword(password, hash))) {
      const user: AdminUser = { id: `password:${role}`, role, via: "password" };
      const storage = adminSessionStorage(db, config.sessionSecrets);
      const session = await storage.getSession();
      session.set("sub", user.id);
      session.set("role", role);
      session.set("ver", await fingerprint(hash));
      try {
        return { ok: true, user, cookie: await storage.commitSession(session) };
      } catch (error) {
        console.error("admin session could not be stored:", error);
        return { ok: false, code: "storage_unavailable" };
      }
    }
  }
  return { ok: false, code: "admin_sign_in_failed" };
}

/**
 * Ends this request's password session on the server (every copy of the cookie it carries, should
 * there be several) and returns the Set-Cookie that clears it in the browser. D1 errors throw.
 */
export async function signOut(request: Request, context: AdminContext): Promise<string> {
  const secrets = context.settings.admin.sessionSecrets;
  // Without a secret nothing was signed, but the storage still writes the clearing cookie.
  const storage = adminSessionStorage(context.cloudflare.env.DB, secrets.length > 0 ? secrets : ["unused"]);
  if (secrets.length > 0) {
    for (const header of sessionCookieHeaders(request)) {
      const session = await storage.getSession(header);
      if (session.id) await storage.destroySession(session);
    }
  }
  return storage.destroySession(await storage.getSession());
}

/** Ends every password session (an admin's "sign out everywhere"). Returns how many ended. D1 errors throw. */
export async function signOutEverywhere(context: AdminContext): Promise<number> {
  return deleteAllSessions(context.cloudflare.env.DB);
}

import { redirect } from "@remix-run/cloudflare";
import { verifyAccessJwt } from "~/lib/admin/access-jwt.server";
import { readAdminConfig, type AdminConfig } from "~/lib/admin/config.server";
import { clientIp } from "~/lib/settings/turnstile.server";
import { refusal } from "~/lib/http/responses.server";
import { hitRateLimits, ipSubject } from "~/lib/http/rate-limit.server";
import { verifyPassword } from "~/lib/admin/password.server";
import { createSessionCookie, fingerprint, readSession, type Role } from "~/lib/admin/session.server";

// Who is asking, and may they? Every admin loader and action calls one of these itself: Remix runs
// a layout's loader beside its children's, never in front of them, so a layout cannot guard them.

export interface AdminUser {
  /** Written to the audit log: "password:admin", "password:viewer" or "access:<email>". */
  id: string;
  role: Role;
  via: "password" | "access";
}

/** "document" pages redirect to the sign-in page; "data" (exports, actions) answer 401. */
export type Audience = "document" | "data";

export const LOGIN_RATE_RULE = { limit: 10, windowSeconds: 15 * 60 };

/** The signed-in person, or null. Never throws. */
export async function findUser(request: Request, env: Env, config = readAdminConfig(env)): Promise<AdminUser | null> {
  const assertion = request.headers.get("Cf-Access-Jwt-Assertion");
  if (config.access && assertion) {
    const verdict = await verifyAccessJwt({ token: assertion, ...config.access });
    if (verdict.ok) return { id: `access:${verdict.email}`, role: "admin", via: "access" };
  }
  if (!config.sessionSecret) return null;
  const session = await readSession(request, config.sessionSecret);
  if (!session) return null;
  const hash = session.role === "admin" ? config.adminHash : config.viewerHash;
  // A session dies with the password it was issued for.
  if (!hash || session.ver !== (await fingerprint(hash))) return null;
  return { id: session.sub, role: session.role, via: "password" };
}

/** A safe place to return to after sign-in: only paths inside /admin. */
export function safeNext(next: string | null): string {
  return next && /^\/admin(\/[^/\\]|$|\?)/.test(next) && !next.includes("//") ? next : "/admin";
}

/** The signed-in user, or throws a redirect to /admin/login (documents) or a 401 refusal (data). */
export async function requireUser(request: Request, env: Env, audience: Audience = "document"): Promise<AdminUser> {
  const user = await findUser(request, env);
  if (user) return user;
  if (audience === "document" && request.method === "GET") {
    const url = new URL(request.url);
    throw redirect(`/admin/login?next=${encodeURIComponent(url.pathname + url.search)}`, 303);
  }
  throw refusal("admin_unauthenticated");
}

/**
 * Guards a state-changing action: POST only, from this origin only (Origin and Sec-Fetch-Site, so a
 * page elsewhere cannot make a signed-in browser act), by a signed-in admin. Throws a refusal otherwise.
 */
export async function requireAdminAction(request: Request, env: Env): Promise<AdminUser> {
  if (request.method !== "POST") throw refusal("method_not_allowed");
  requireSameOrigin(request);
  const user = await requireUser(request, env, "data");
  if (user.role !== "admin") throw refusal("admin_forbidden");
  return user;
}

/** Throws admin_cross_origin unless the browser says the request came from this origin. */
export function requireSameOrigin(request: Request): void {
  const site = request.headers.get("Sec-Fetch-Site");
  const origin = request.headers.get("Origin");
  if (site !== null && site !== "same-origin") throw refusal("admin_cross_origin");
  // Every browser sends Origin on a POST; a request with neither header is not from our pages.
  if (origin === null ? site === null : origin !== new URL(request.url).origin) throw refusal("admin_cross_origin");
}

export type SignInResult =
  | { ok: true; user: AdminUser; cookie: string }
  | { ok: false; code: "admin_closed" | "admin_sign_in_failed" | "admin_rate_limited" | "storage_unavailable" };

/** Checks a password against both roles' hashes, rate-limited per IP. Never throws. */
export async function signIn(request: Request, env: Env, password: string, nowMs = Date.now()): Promise<SignInResult> {
  const config: AdminConfig = readAdminConfig(env);
  if (!config.passwordSignIn || !config.sessionSecret) return { ok: false, code: "admin_closed" };
  // Every attempt counts, before any hashing: PBKDF2 is deliberately slow and must not be a free oracle.
  const rule = { key: `admin-login:ip:${ipSubject(clientIp(request))}`, ...LOGIN_RATE_RULE };
  const limit = await hitRateLimits(env.DB, [rule], nowMs);
  if (!limit.ok) return { ok: false, code: "code" in limit ? limit.code : "admin_rate_limited" };
  for (const [role, hash] of [["admin", config.adminHash], ["viewer", config.viewerHash]] as const) {
    if (hash && (await verifyPassword(password, hash))) {
      const user: AdminUser = { id: `password:${role}`, role, via: "password" };
      const cookie = await createSessionCookie({ request, secret: config.sessionSecret, sub: user.id, role, ver: await fingerprint(hash), nowMs });
      return { ok: true, user, cookie };
    }
  }
  return { ok: false, code: "admin_sign_in_failed" };
}

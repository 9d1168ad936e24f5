import type { AdminContext, AdminUser } from "~/lib/admin/auth.server";
import { verifyPassword } from "~/lib/crypto/password.server";
import { adminSessionStorage, fingerprint, sessionCookieHeaders } from "~/lib/admin/session.server";
import { deleteAllSessions } from "~/lib/storage/admin-sessions.server";
import { clientIp, ipSubject, ipv6Prefix48 } from "~/lib/http/client-ip.server";
import type { RateRule, RateVerdict } from "~/lib/http/rate-limit.server";
import { rateLimitStatement, refundRateLimitStatement, verdictOfRows } from "~/lib/storage/rate-limits.server";
import { ERRORS, type ErrorCode } from "~/lib/http/errors";
import { expectedHostnames } from "~/lib/settings/turnstile.server";
import { verifyTurnstile } from "~/lib/turnstile/siteverify.server";
import { storageCodeOf, tryD1 } from "~/lib/storage/d1-failure.server";

// Password sign-in and sign-out. Every attempt is counted before any hashing (PBKDF2 must not be a free
// oracle or a CPU sink) against the address (IPv6 by /64), its /48 and the whole site (docs/decisions/014).
// Past the site's budget a Turnstile pass stands in, so strangers cannot lock the owner out (027).

const WINDOW_SECONDS = 15 * 60;
export const LOGIN_RATE_RULE = { limit: 10, windowSeconds: WINDOW_SECONDS };
export const LOGIN_PREFIX48_RULE = { limit: 30, windowSeconds: WINDOW_SECONDS };
export const LOGIN_GLOBAL_RULE = { limit: 100, windowSeconds: WINDOW_SECONDS };
const SITE_KEY = "admin-login:all";

/** The budgets one attempt from `ip` counts against. */
export function signInRateRules(ip: string | null): RateRule[] {
  const rules: RateRule[] = [
    { key: `admin-login:ip:${ipSubject(ip)}`, ...LOGIN_RATE_RULE, policy: "address" },
    { key: SITE_KEY, ...LOGIN_GLOBAL_RULE, policy: "site" },
  ];
  const prefix = ipv6Prefix48(ip);
  if (prefix) rules.push({ key: `admin-login:ip48:${prefix}`, ...LOGIN_PREFIX48_RULE, policy: "network" });
  return rules;
}

/** The Turnstile action of the sign-in form's widget: a token solved for a form does not sign anyone in. */
export const SIGN_IN_CAPTCHA_ACTION = "admin-sign-in";

export type SignInResult =
  | { ok: true; user: AdminUser; cookie: string }
  | { ok: false; code: "admin_closed" | "storage_unavailable" }
  /** `captcha`: the site's budget was spent, so the next try needs a Turnstile pass as well. */
  | { ok: false; code: "admin_sign_in_failed"; captcha: boolean }
  | { ok: false; code: "admin_rate_limited"; retryAfterSeconds: number; rate: { verdict: RateVerdict; rules: RateRule[] } }
  /** The site's budget is spent: the form must carry a Turnstile pass (admin_check_required) or its pass failed. */
  | { ok: false; code: ErrorCode; captcha: true; rate?: { verdict: RateVerdict; rules: RateRule[] } };

/** Checks a password within the budgets (past the site's, only with a Turnstile `token`). D1 failures: storage_unavailable. */
export async function signIn(
  request: Request,
  context: AdminContext,
  password: string,
  token: string | null = null,
  nowMs = Date.now(),
): Promise<SignInResult> {
  const config = context.settings.admin;
  const db = context.cloudflare.env.DB;
  if (!config.passwordSignIn) return { ok: false, code: "admin_closed" };
  const ip = clientIp(request);
  const rules = signInRateRules(ip);
  const own = rules.filter((rule) => rule.key !== SITE_KEY);
  // It counts the attempt, so a transient failure is not repeated.
  const counted = await tryD1(() => rateLimitStatement(db, rules, nowMs).all(), { retry: false });
  if (!counted.ok) return { ok: false, code: storageCodeOf(counted, "sign-in budget check") };
  const rows = counted.value.results;
  const ownVerdict = verdictOfRows(own, rows, nowMs);
  if (!ownVerdict.ok) {
    return {
      ok: false,
      code: "admin_rate_limited",
      retryAfterSeconds: Math.max(1, ownVerdict.resetSeconds),
      rate: { verdict: ownVerdict, rules: own },
    };
  }
  const siteVerdict = verdictOfRows(rules, rows, nowMs);
  if (!siteVerdict.ok) {
    if (!token) return { ok: false, code: "admin_check_required", captcha: true, rate: { verdict: siteVerdict, rules } };
    const { turnstile } = context.settings;
    const check = await verifyTurnstile({
      token,
      secret: turnstile.secretKey,
      verifyUrl: turnstile.verifyUrl,
      remoteIp: ip,
      expectedAction: SIGN_IN_CAPTCHA_ACTION,
      expectedHostnames: expectedHostnames(turnstile, request),
    });
    if (!check.ok) {
      if (ERRORS[check.code].status >= 500) {
        console.error(`Turnstile verification unavailable for the sign-in: ${check.code} (${check.detail ?? ""})`);
      }
      return { ok: false, code: check.code, captcha: true };
    }
  }
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
      // A new random id each try, so a repeat after an unknown outcome leaves at most an unused row.
      const stored = await tryD1(() => storage.commitSession(session));
      if (!stored.ok) return { ok: false, code: storageCodeOf(stored, "storing the admin session") };
      // The attempt was counted before hashing; a right password is no guess, so it does not count
      // toward the lock-out (an owner signing in often never locks themself out). A refund is not repeated.
      const refunded = await tryD1(() => refundRateLimitStatement(db, rules, nowMs).run(), { retry: false });
      if (!refunded.ok) return { ok: false, code: storageCodeOf(refunded, "refunding the sign-in attempt") };
      return { ok: true, user, cookie: stored.value };
    }
  }
  return { ok: false, code: "admin_sign_in_failed", captcha: !siteVerdict.ok };
}

/** Ends this request's password session (every copy of its cookie) and returns the clearing Set-Cookie. D1 errors throw. */
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

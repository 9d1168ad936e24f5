import type { AdminContext, AdminUser } from "~/lib/auth/admin-user.server";
import { verifyPassword } from "~/lib/crypto/password.server";
import { adminSessionStorage, fingerprint, sessionCookieHeaders } from "~/lib/auth/session.server";
import { deleteAllSessions } from "~/lib/storage/admin-sessions.server";
import { clientIp } from "~/lib/http/client-ip.server";
import type { RateRule, RateVerdict } from "~/lib/http/rate-limit.server";
import { countSignInAttempt, settleSignInAttempt, signInBudget } from "~/lib/auth/sign-in-budget.server";
import { knownDeviceCookie, knownDeviceOf } from "~/lib/auth/known-device.server";
import { ERRORS, type ErrorCode } from "~/lib/http/errors";
import { expectedHostnames } from "~/lib/settings/turnstile.server";
import { verifyTurnstile } from "~/lib/turnstile/siteverify.server";
import { storageCodeOf, tryD1 } from "~/lib/storage/d1-failure.server";

// Password sign-in and sign-out; every attempt is counted before any hashing (ADR 112), so PBKDF2 is no free
// oracle or CPU sink. Past the site's budget a Turnstile pass stands in (ADR 027).

/** The Turnstile action of the sign-in form's widget: a token solved for a form does not sign anyone in. */
export const SIGN_IN_CAPTCHA_ACTION = "admin-sign-in";

export type SignInResult =
  | { ok: true; user: AdminUser; cookies: string[] }
  | { ok: false; code: "admin_closed" | "storage_unavailable" }
  | { ok: false; code: "admin_sign_in_failed"; captcha: boolean }
  | { ok: false; code: "admin_rate_limited"; retryAfterSeconds: number; rate: { verdict: RateVerdict; rules: RateRule[] } }
  | { ok: false; code: ErrorCode; captcha: true };

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
  const device = await knownDeviceOf(request, config.sessionSecrets);
  const budget = signInBudget(device ? { device } : { ip });
  // It counts the attempt, so a transient failure is not repeated.
  const counted = await tryD1(() => countSignInAttempt(db, budget, nowMs), { retry: false });
  if (!counted.ok) return { ok: false, code: storageCodeOf(counted, "sign-in budget check") };
  const verdict = counted.value;
  if (!verdict.ok) return verdict;
  if (verdict.checkNeeded) {
    if (!token) return { ok: false, code: "admin_check_required", captcha: true };
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
  const user = await passwordUser(password, config);
  // A right password's attempt is taken back, so an owner is never locked out; neither is repeated.
  const settled = await tryD1(() => settleSignInAttempt(db, budget, verdict, user !== null, nowMs).run(), { retry: false });
  if (!settled.ok) return { ok: false, code: storageCodeOf(settled, "settling the sign-in attempt") };
  if (!user) return { ok: false, code: "admin_sign_in_failed", captcha: verdict.checkNeeded };
  const hash = user.role === "admin" ? config.adminHash : config.viewerHash;
  const storage = adminSessionStorage(db, config.sessionSecrets);
  const session = await storage.getSession();
  session.set("sub", user.id);
  session.set("role", user.role);
  session.set("ver", await fingerprint(hash!));
  // A new random id each try, so a repeat after an unknown outcome leaves at most an unused row.
  const stored = await tryD1(() => storage.commitSession(session));
  if (!stored.ok) return { ok: false, code: storageCodeOf(stored, "storing the admin session") };
  return { ok: true, user, cookies: [stored.value, await knownDeviceCookie(config.sessionSecrets, device)] };
}

async function passwordUser(password: string, config: AdminContext["settings"]["admin"]): Promise<AdminUser | null> {
  for (const [role, hash] of [
    ["admin", config.adminHash],
    ["viewer", config.viewerHash],
  ] as const) {
    if (hash && (await verifyPassword(password, hash))) return { id: `password:${role}`, role, via: "password" };
  }
  return null;
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

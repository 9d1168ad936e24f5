import { userOfPerson, type AdminContext, type AdminUser } from "~/lib/auth/admin-user.server";
import { knownDeviceCookie, knownDeviceOf } from "~/lib/auth/known-device.server";
import { countSignInAttempt, settleSignInAttempt, signInBudget } from "~/lib/auth/sign-in-budget.server";
import { personSession, startSession } from "~/lib/auth/sign-in.server";
import { clientIp } from "~/lib/http/client-ip.server";
import { verifyPasskeySignIn, type RelyingParty } from "~/lib/people/passkeys.server";
import { auditStatement } from "~/lib/storage/audit-log.server";
import { storageCodeOf, tryD1 } from "~/lib/storage/d1-failure.server";
import { findLivePerson, touchSignInStatement } from "~/lib/storage/people.server";

// A passkey sign-in, within the same budgets as a password's (ADR 112, 129): counted per address or
// known device before the signature is checked, taken back when it holds. No Turnstile past the site's
// budget: a passkey cannot be guessed, so the budget only bounds the work (docs/decisions/130).

export type PasskeySignInResult =
  | { ok: true; user: AdminUser; cookies: string[] }
  | { ok: false; code: "admin_closed" | "storage_unavailable" | "passkey_failed" }
  | { ok: false; code: "admin_rate_limited"; retryAfterSeconds: number };

/** Signs in the person whose passkey answered. D1 failures: storage_unavailable. */
export async function signInWithPasskey(
  request: Request,
  context: AdminContext,
  rp: RelyingParty,
  response: unknown,
  nowMs: number,
): Promise<PasskeySignInResult> {
  const secrets = context.settings.admin.sessionSecrets;
  const db = context.cloudflare.env.DB;
  if (secrets.length === 0) return { ok: false, code: "admin_closed" };
  const device = await knownDeviceOf(request, secrets);
  const budget = signInBudget(device ? { device } : { ip: clientIp(request) });
  const counted = await tryD1(() => countSignInAttempt(db, budget, nowMs), { retry: false });
  if (!counted.ok) return { ok: false, code: storageCodeOf(counted, "passkey sign-in budget check") };
  if (!counted.value.ok) return { ok: false, code: "admin_rate_limited", retryAfterSeconds: counted.value.retryAfterSeconds };
  const verdict = counted.value;
  const found = await tryD1(async () => {
    const key = await verifyPasskeySignIn(db, rp, response, nowMs);
    return key ? findLivePerson(db, key.person_id) : null;
  });
  if (!found.ok) return { ok: false, code: storageCodeOf(found, "verifying a passkey") };
  const person = found.value;
  const user = person ? userOfPerson(person, "passkey") : null;
  const settle = settleSignInAttempt(db, budget, verdict, person !== null, nowMs);
  const after =
    person && user
      ? [
          touchSignInStatement(db, person.id, nowMs),
          auditStatement(db, { user, request, action: "sign-in", detail: { via: "passkey" }, nowMs }),
        ]
      : [];
  const settled = await tryD1(() => db.batch([settle, ...after]), { retry: false });
  if (!settled.ok) return { ok: false, code: storageCodeOf(settled, "settling the passkey sign-in") };
  if (!person || !user) return { ok: false, code: "passkey_failed" };
  const started = await startSession(db, secrets, await personSession(person, person.role, "passkey"));
  if (!started.ok) return started;
  return { ok: true, user, cookies: [started.cookie, await knownDeviceCookie(secrets, device)] };
}

import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { z } from "zod";
import type { AdminUser } from "~/lib/auth/admin-user.server";
import { decodeBase64Url, encodeBase64Url } from "~/lib/crypto/base64";
import { auditStatement } from "~/lib/storage/audit-log.server";
import {
  findPasskey,
  insertPasskeyStatement,
  listPasskeys,
  spendChallenge,
  storeChallenge,
  usePasskeyStatement,
  type PasskeyRow,
} from "~/lib/storage/passkeys.server";

// Passkeys (docs/decisions/130): the ceremonies are @simplewebauthn/server's (CBOR, COSE, attestation
// and signatures are the library's, never ours); this module keeps the challenges, each spent once,
// and the keys. Discoverable credentials: a person signs in without typing their address.

/** Where the ceremony happens: the relying party's id (the host) and the page's origin. */
export interface RelyingParty {
  rpID: string;
  origin: string;
}

/** The relying party of this deployment: PUBLIC_URL's host, else the request's. */
export function relyingPartyOf(request: Request, publicUrl: string | null): RelyingParty {
  const url = new URL(publicUrl ?? request.url);
  return { rpID: url.hostname, origin: url.origin };
}

/** A browser's answer, as @simplewebauthn/browser sends it; the library checks everything inside. */
export const CeremonyResponseSchema = z
  .object({
    id: z.string().min(1).max(1024),
    rawId: z.string().max(1024),
    type: z.literal("public-key"),
    response: z.record(z.string(), z.unknown()),
  })
  .passthrough();

/** A passkey's name as a person types it. */
export const PasskeyNameSchema = z.string().trim().min(1).max(60);

/** Registration options for `person`, their present keys excluded; the challenge is kept five minutes. D1 errors throw. */
export async function registrationOptions(db: D1Database, person: { id: string; email: string }, rp: RelyingParty, nowMs: number) {
  const keys = await listPasskeys(db, person.id);
  const options = await generateRegistrationOptions({
    rpName: "Gatepost console",
    rpID: rp.rpID,
    userName: person.email,
    userID: new TextEncoder().encode(person.id),
    attestationType: "none",
    excludeCredentials: keys.map((k) => ({ id: k.id, transports: transportsOf(k) })),
    authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
  });
  await storeChallenge(db, { challenge: options.challenge, purpose: "register", personId: person.id, nowMs });
  return options;
}

/** The challenge check handed to the library, which must not swallow a D1 failure as a wrong answer. */
function challengeSpender(db: D1Database, spend: { purpose: "register" | "sign-in"; personId: string | null; nowMs: number }) {
  const state: { failure: unknown } = { failure: null };
  const check = async (challenge: string) => {
    try {
      return await spendChallenge(db, { challenge, ...spend });
    } catch (error) {
      state.failure = error;
      return false;
    }
  };
  return {
    check,
    rethrow: () => {
      if (state.failure) throw state.failure;
    },
  };
}

function transportsOf(key: PasskeyRow): AuthenticatorTransportFuture[] | undefined {
  return key.transports ? (JSON.parse(key.transports) as AuthenticatorTransportFuture[]) : undefined;
}

export type PasskeyResult = { ok: true; id: string } | { ok: false; code: "passkey_failed" | "passkey_limit" };

/** Verifies a registration and keeps the key under `name`, with an audit line. Never throws but for D1 errors. */
export async function registerPasskey(
  ctx: { db: D1Database; user: AdminUser; request: Request; nowMs: number },
  rp: RelyingParty,
  register: { personId: string; name: string; response: unknown },
): Promise<PasskeyResult> {
  let verified;
  const spender = challengeSpender(ctx.db, { purpose: "register", personId: register.personId, nowMs: ctx.nowMs });
  try {
    verified = await verifyRegistrationResponse({
      response: register.response as RegistrationResponseJSON,
      expectedChallenge: spender.check,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      requireUserVerification: false,
    });
  } catch {
    spender.rethrow();
    return { ok: false, code: "passkey_failed" };
  }
  spender.rethrow();
  if (!verified.verified) return { ok: false, code: "passkey_failed" };
  const { credential } = verified.registrationInfo;
  const [made] = await ctx.db.batch([
    insertPasskeyStatement(ctx.db, {
      id: credential.id,
      personId: register.personId,
      name: register.name,
      publicKey: encodeBase64Url(credential.publicKey),
      counter: credential.counter,
      transports: credential.transports ? JSON.stringify(credential.transports) : null,
      nowMs: ctx.nowMs,
    }),
    auditStatement(ctx.db, { ...ctx, action: "passkey.add", ifChanged: true, target: credential.id, detail: { name: register.name } }),
  ]);
  return made.results.length > 0 ? { ok: true, id: credential.id } : { ok: false, code: "passkey_limit" };
}

/** Options for a passkey sign-in (any of this site's discoverable keys). D1 errors throw. */
export async function signInOptions(db: D1Database, rp: RelyingParty, nowMs: number) {
  const options = await generateAuthenticationOptions({ rpID: rp.rpID, userVerification: "preferred" });
  await storeChallenge(db, { challenge: options.challenge, purpose: "sign-in", personId: null, nowMs });
  return options;
}

/** The live person whose passkey signed this challenge, or null (no such key, a spent challenge, a bad signature). D1 errors throw. */
export async function verifyPasskeySignIn(db: D1Database, rp: RelyingParty, response: unknown, nowMs: number): Promise<PasskeyRow | null> {
  const answer = response as AuthenticationResponseJSON;
  const key = await findPasskey(db, answer.id);
  const publicKey = key ? decodeBase64Url(key.public_key) : null;
  if (!key || !publicKey) return null;
  const spender = challengeSpender(db, { purpose: "sign-in", personId: null, nowMs });
  let verified;
  try {
    verified = await verifyAuthenticationResponse({
      response: answer,
      expectedChallenge: spender.check,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      credential: { id: key.id, publicKey, counter: key.counter, transports: transportsOf(key) },
      requireUserVerification: false,
    });
  } catch {
    spender.rethrow();
    return null;
  }
  spender.rethrow();
  if (!verified.verified) return null;
  await usePasskeyStatement(db, key.id, verified.authenticationInfo.newCounter, nowMs).run();
  return key;
}

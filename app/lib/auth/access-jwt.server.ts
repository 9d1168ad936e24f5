import { createRemoteJWKSet, customFetch, errors, jwtVerify, type JWTVerifyGetKey } from "jose";

// Cloudflare Access's `Cf-Access-Jwt-Assertion`, verified with jose against the team's key set, cached per
// isolate with a failed fetch remembered briefly (ADR 015).

export type AccessVerdict =
  | { ok: true; email: string; sub: string }
  | {
      ok: false;
      code:
        | "malformed"
        | "unsupported_alg"
        | "unknown_key"
        | "bad_signature"
        | "expired"
        | "not_yet_valid"
        | "wrong_audience"
        | "wrong_issuer"
        | "jwks_unavailable";
    };

export interface AccessOptions {
  token: string | null;
  teamDomain: string;
  audience: string;
  fetch?: typeof fetch;
  nowMs?: number;
}

export const KEY_SET_MAX_AGE_MS = 10 * 60_000;
export const UNKNOWN_KID_COOLDOWN_MS = 30_000;
export const FAILURE_TTL_MS = 15_000;
const FETCH_TIMEOUT_MS = 5_000;
const CLOCK_SKEW_SECONDS = 60;
const MAX_TOKEN_LENGTH = 8192;
const MAX_CACHED_ISSUERS = 8;

interface KeySet {
  getKey: JWTVerifyGetKey;
  failedUntil: number;
}

const keySets = new WeakMap<typeof fetch, Map<string, KeySet>>();

/** The issuer URL for a team domain, normalised. */
export function accessIssuer(teamDomain: string): string {
  return `https://${teamDomain
    .trim()
    .replace(/^https?:\/\//, "")
    .replace(/\/+$/, "")}`;
}

function keySetFor(issuer: string, fetcher: typeof fetch): KeySet {
  let byIssuer = keySets.get(fetcher);
  if (!byIssuer) keySets.set(fetcher, (byIssuer = new Map()));
  let keySet = byIssuer.get(issuer);
  if (!keySet) {
    const getKey = createRemoteJWKSet(new URL(`${issuer}/cdn-cgi/access/certs`), {
      cacheMaxAge: KEY_SET_MAX_AGE_MS,
      cooldownDuration: UNKNOWN_KID_COOLDOWN_MS,
      timeoutDuration: FETCH_TIMEOUT_MS,
      [customFetch]: fetcher,
    });
    if (byIssuer.size >= MAX_CACHED_ISSUERS) byIssuer.delete(byIssuer.keys().next().value!);
    byIssuer.set(issuer, (keySet = { getKey, failedUntil: 0 }));
  }
  return keySet;
}

class KeySetUnavailable extends Error {}

function codeOf(error: unknown): Extract<AccessVerdict, { ok: false }>["code"] {
  if (error instanceof KeySetUnavailable) return "jwks_unavailable";
  if (error instanceof errors.JWTExpired) return "expired";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "nbf") return "not_yet_valid";
    if (error.claim === "aud") return "wrong_audience";
    if (error.claim === "iss") return "wrong_issuer";
    if (error.claim === "exp") return "expired";
    return "malformed";
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) return "unsupported_alg";
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) return "unknown_key";
  if (error instanceof errors.JWSSignatureVerificationFailed) return "bad_signature";
  return "malformed";
}

/** Verifies an Access JWT. Never throws: every failure is a code, and any doubt is a refusal. */
export async function verifyAccessJwt(options: AccessOptions): Promise<AccessVerdict> {
  const token = options.token ?? "";
  // Cheap checks first: nothing that is not three base64url parts reaches the key set.
  if (token.length > MAX_TOKEN_LENGTH || !/^[\w-]+\.[\w-]+\.[\w-]*$/.test(token)) return { ok: false, code: "malformed" };
  if (!options.audience) return { ok: false, code: "wrong_audience" };
  const issuer = accessIssuer(options.teamDomain);
  const keySet = keySetFor(issuer, options.fetch ?? globalThis.fetch);
  const getKey: JWTVerifyGetKey = async (header, input) => {
    if (Date.now() < keySet.failedUntil) throw new KeySetUnavailable();
    try {
      return await keySet.getKey(header, input);
    } catch (error) {
      // A key set without this kid is the token's problem; anything else is the key set's, remembered briefly.
      if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) throw error;
      keySet.failedUntil = Date.now() + FAILURE_TTL_MS;
      throw new KeySetUnavailable();
    }
  };
  try {
    const { payload } = await jwtVerify(token, getKey, {
      algorithms: ["RS256"],
      audience: options.audience,
      issuer,
      requiredClaims: ["exp"],
      clockTolerance: CLOCK_SKEW_SECONDS,
      currentDate: options.nowMs === undefined ? undefined : new Date(options.nowMs),
    });
    const email = typeof payload.email === "string" ? payload.email : "";
    const sub = typeof payload.sub === "string" ? payload.sub : "";
    if (!email && !sub) return { ok: false, code: "malformed" };
    return { ok: true, email: email || sub, sub };
  } catch (error) {
    return { ok: false, code: codeOf(error) };
  }
}

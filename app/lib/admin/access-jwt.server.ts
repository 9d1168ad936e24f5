import { decodeBase64Url } from "~/lib/crypto/base64url";

// Cloudflare Access puts a signed JWT in `Cf-Access-Jwt-Assertion` on every request it lets through.
// Gatepost verifies it itself (never trusting the header's presence alone): RS256 signature against
// the team's JWKS at https://<team>/cdn-cgi/access/certs, then aud, iss, exp and nbf.

export type AccessVerdict =
  | { ok: true; email: string; sub: string }
  | {
      ok: false;
      code: "malformed" | "unsupported_alg" | "unknown_key" | "bad_signature" | "expired" | "not_yet_valid" | "wrong_audience" | "wrong_issuer" | "jwks_unavailable";
    };

export interface AccessOptions {
  token: string | null;
  /** e.g. "myteam.cloudflareaccess.com" (a leading https:// is accepted). */
  teamDomain: string;
  audience: string;
  fetch?: typeof fetch;
  nowMs?: number;
}

interface Jwk extends JsonWebKey {
  kid?: string;
}

const CLOCK_SKEW_SECONDS = 60;

function decodeJson(part: string): Record<string, unknown> | null {
  const bytes = decodeBase64Url(part);
  if (!bytes) return null;
  try {
    const value = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The issuer URL for a team domain, normalised. */
export function accessIssuer(teamDomain: string): string {
  return `https://${teamDomain.trim().replace(/^https?:\/\//, "").replace(/\/+$/, "")}`;
}

async function fetchKeys(issuer: string, fetcher: typeof fetch): Promise<Jwk[] | null> {
  try {
    const response = await fetcher(`${issuer}/cdn-cgi/access/certs`, { signal: AbortSignal.timeout(5_000) });
    if (!response.ok) return null;
    const body = (await response.json()) as { keys?: unknown };
    return Array.isArray(body.keys) ? (body.keys as Jwk[]) : null;
  } catch {
    return null;
  }
}

/** Verifies an Access JWT. Never throws: every failure is a code, and any doubt is a refusal. */
export async function verifyAccessJwt(options: AccessOptions): Promise<AccessVerdict> {
  const parts = (options.token ?? "").split(".");
  if (parts.length !== 3 || options.token!.length > 8192) return { ok: false, code: "malformed" };
  const header = decodeJson(parts[0]);
  const claims = decodeJson(parts[1]);
  const signature = decodeBase64Url(parts[2]);
  if (!header || !claims || !signature) return { ok: false, code: "malformed" };
  if (header.alg !== "RS256") return { ok: false, code: "unsupported_alg" };

  const issuer = accessIssuer(options.teamDomain);
  const keys = await fetchKeys(issuer, options.fetch ?? fetch);
  if (!keys) return { ok: false, code: "jwks_unavailable" };
  const jwk = keys.find((key) => key.kid === header.kid && key.kty === "RSA");
  if (!jwk) return { ok: false, code: "unknown_key" };

  let valid = false;
  try {
    const { kid: _kid, ...keyData } = jwk;
    const key = await crypto.subtle.importKey("jwk", { ...keyData, alg: "RS256", ext: true }, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["verify"]);
    valid = await crypto.subtle.verify("RSASSA-PKCS1-v1_5", key, signature, new TextEncoder().encode(`${parts[0]}.${parts[1]}`));
  } catch {
    valid = false;
  }
  if (!valid) return { ok: false, code: "bad_signature" };

  const now = Math.floor((options.nowMs ?? Date.now()) / 1000);
  if (typeof claims.exp !== "number" || claims.exp + CLOCK_SKEW_SECONDS <= now) return { ok: false, code: "expired" };
  if (typeof claims.nbf === "number" && claims.nbf - CLOCK_SKEW_SECONDS > now) return { ok: false, code: "not_yet_valid" };
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!options.audience || !audiences.includes(options.audience)) return { ok: false, code: "wrong_audience" };
  if (claims.iss !== issuer) return { ok: false, code: "wrong_issuer" };
  const email = typeof claims.email === "string" ? claims.email : "";
  const sub = typeof claims.sub === "string" ? claims.sub : "";
  if (!email && !sub) return { ok: false, code: "malformed" };
  return { ok: true, email: email || sub, sub };
}

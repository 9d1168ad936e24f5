import { generateKeyPairSync, createSign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { verifyAccessJwt } from "~/lib/admin/access-jwt.server";

// A locally generated RSA key pair stands in for the team's Access signing key; fetch is injected.
const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const other = generateKeyPairSync("rsa", { modulusLength: 2048 });
const JWKS = { keys: [{ ...publicKey.export({ format: "jwk" }), kid: "key-1", alg: "RS256", use: "sig" }] };
const NOW = Date.parse("2026-06-01T12:00:00Z");
const TEAM = "team.cloudflareaccess.com";
const CLAIMS = { aud: ["aud-1"], iss: `https://${TEAM}`, email: "ops@example.org", sub: "user-1", iat: NOW / 1000, nbf: NOW / 1000, exp: NOW / 1000 + 300 };

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
function sign(claims: Record<string, unknown>, header: Record<string, unknown> = { alg: "RS256", kid: "key-1" }, key = privateKey) {
  const input = `${b64(header)}.${b64(claims)}`;
  return `${input}.${createSign("RSA-SHA256").update(input).sign(key).toString("base64url")}`;
}

const calls: string[] = [];
const fakeFetch = (async (url: string) => {
  calls.push(String(url));
  return Response.json(JWKS);
}) as unknown as typeof fetch;

const verify = (token: string, extra: Partial<Parameters<typeof verifyAccessJwt>[0]> = {}) =>
  verifyAccessJwt({ token, teamDomain: TEAM, audience: "aud-1", fetch: fakeFetch, nowMs: NOW, ...extra });

describe("Cloudflare Access JWT", () => {
  it("accepts a valid token and reads the e-mail, fetching the team's certs", async () => {
    expect(await verify(sign(CLAIMS))).toEqual({ ok: true, email: "ops@example.org", sub: "user-1" });
    expect(calls.at(-1)).toBe(`https://${TEAM}/cdn-cgi/access/certs`);
    expect(await verify(sign(CLAIMS), { teamDomain: `https://${TEAM}/` })).toMatchObject({ ok: true });
  });

  it.each([
    ["wrong audience", sign({ ...CLAIMS, aud: ["aud-2"] }), "wrong_audience"],
    ["wrong issuer", sign({ ...CLAIMS, iss: "https://evil.cloudflareaccess.com" }), "wrong_issuer"],
    ["expired", sign({ ...CLAIMS, exp: NOW / 1000 - 120 }), "expired"],
    ["not yet valid", sign({ ...CLAIMS, nbf: NOW / 1000 + 600 }), "not_yet_valid"],
    ["signed by another key", sign(CLAIMS, undefined, other.privateKey), "bad_signature"],
    ["unknown kid", sign(CLAIMS, { alg: "RS256", kid: "key-9" }), "unknown_key"],
    ["alg none", `${b64({ alg: "none", kid: "key-1" })}.${b64(CLAIMS)}.`, "unsupported_alg"],
    ["HS256", sign(CLAIMS, { alg: "HS256", kid: "key-1" }), "unsupported_alg"],
    ["garbage", "not.a.jwt", "malformed"],
  ])("refuses a token that is %s", async (_name, token, code) => {
    expect(await verify(token)).toEqual({ ok: false, code });
  });

  it("refuses when the certs cannot be fetched", async () => {
    const down = (async () => new Response("nope", { status: 502 })) as unknown as typeof fetch;
    expect(await verify(sign(CLAIMS), { fetch: down })).toEqual({ ok: false, code: "jwks_unavailable" });
    const throws = (async () => {
      throw new TypeError("network");
    }) as unknown as typeof fetch;
    expect(await verify(sign(CLAIMS), { fetch: throws })).toEqual({ ok: false, code: "jwks_unavailable" });
  });

  it("refuses when no token was sent or no audience is configured", async () => {
    expect(await verify(null as unknown as string)).toEqual({ ok: false, code: "malformed" });
    expect(await verify(sign(CLAIMS), { audience: "" })).toEqual({ ok: false, code: "wrong_audience" });
  });
});

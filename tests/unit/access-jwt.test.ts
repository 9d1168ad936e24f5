import { generateKeyPairSync, createSign } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FAILURE_TTL_MS, KEY_SET_MAX_AGE_MS, UNKNOWN_KID_COOLDOWN_MS, verifyAccessJwt } from "~/lib/auth/access-jwt.server";

// A locally generated RSA key pair stands in for the team's Access signing key; fetch is injected.
const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const other = generateKeyPairSync("rsa", { modulusLength: 2048 });
const JWKS = { keys: [{ ...publicKey.export({ format: "jwk" }), kid: "key-1", alg: "RS256", use: "sig" }] };
const NOW = Date.parse("2026-06-01T12:00:00Z");
const TEAM = "team.cloudflareaccess.com";
const CLAIMS = {
  aud: ["aud-1"],
  iss: `https://${TEAM}`,
  email: "ops@example.org",
  sub: "user-1",
  iat: NOW / 1000,
  nbf: NOW / 1000,
  exp: NOW / 1000 + 300,
};

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

  it("refuses a token with an unexpected claim shape, and a huge one before any fetch", async () => {
    expect(await verify(sign({ ...CLAIMS, exp: undefined }))).toEqual({ ok: false, code: "expired" });
    expect(await verify(sign({ ...CLAIMS, email: undefined, sub: undefined }))).toEqual({ ok: false, code: "malformed" });
    const before = calls.length;
    expect(await verify(`${"a".repeat(9000)}.b.c`)).toEqual({ ok: false, code: "malformed" });
    expect(await verify("a.b")).toEqual({ ok: false, code: "malformed" });
    expect(calls.length).toBe(before);
  });

  it("refuses when no token was sent or no audience is configured", async () => {
    expect(await verify(null as unknown as string)).toEqual({ ok: false, code: "malformed" });
    expect(await verify(sign(CLAIMS), { audience: "" })).toEqual({ ok: false, code: "wrong_audience" });
  });
});

/** A fetch that counts its calls and answers with `respond`. */
function countingFetch(respond: () => Response | Promise<Response>) {
  const fetcher = vi.fn(async () => respond());
  return { fetch: fetcher as unknown as typeof fetch, count: () => fetcher.mock.calls.length };
}

describe("the Access key set cache", () => {
  afterEach(() => vi.useRealTimers());

  it("fetches the key set once for many requests, and again only after its max age", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const keys = countingFetch(() => Response.json(JWKS));
    for (let i = 0; i < 20; i++) expect(await verify(sign(CLAIMS), { fetch: keys.fetch })).toMatchObject({ ok: true });
    expect(keys.count()).toBe(1);
    vi.advanceTimersByTime(KEY_SET_MAX_AGE_MS + 1);
    expect(await verify(sign(CLAIMS), { fetch: keys.fetch })).toMatchObject({ ok: true });
    expect(keys.count()).toBe(2);
  });

  it("does not fetch for each junk assertion with an unknown kid (at most once per cooldown)", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const keys = countingFetch(() => Response.json(JWKS));
    expect(await verify(sign(CLAIMS), { fetch: keys.fetch })).toMatchObject({ ok: true });
    vi.advanceTimersByTime(UNKNOWN_KID_COOLDOWN_MS + 1);
    for (let i = 0; i < 50; i++) {
      expect(await verify(sign(CLAIMS, { alg: "RS256", kid: `junk-${i}` }), { fetch: keys.fetch })).toEqual({
        ok: false,
        code: "unknown_key",
      });
    }
    expect(keys.count()).toBe(2);
  });

  it("remembers a failed fetch briefly: 50 requests cost one fetch, and the next try comes after the TTL", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    let up = false;
    const keys = countingFetch(() => (up ? Response.json(JWKS) : new Response("bad gateway", { status: 502 })));
    for (let i = 0; i < 50; i++) expect(await verify(sign(CLAIMS), { fetch: keys.fetch })).toEqual({ ok: false, code: "jwks_unavailable" });
    expect(keys.count()).toBe(1);
    up = true;
    vi.advanceTimersByTime(FAILURE_TTL_MS + 1);
    expect(await verify(sign(CLAIMS), { fetch: keys.fetch })).toMatchObject({ ok: true });
    expect(keys.count()).toBe(2);
  });

  it("remembers a network error and a key set that is not one the same way", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const down = countingFetch(() => {
      throw new TypeError("network");
    });
    const junk = countingFetch(() => Response.json({ nope: true }));
    for (let i = 0; i < 10; i++) {
      expect(await verify(sign(CLAIMS), { fetch: down.fetch })).toEqual({ ok: false, code: "jwks_unavailable" });
      expect(await verify(sign(CLAIMS), { fetch: junk.fetch })).toEqual({ ok: false, code: "jwks_unavailable" });
    }
    expect([down.count(), junk.count()]).toEqual([1, 1]);
  });
});

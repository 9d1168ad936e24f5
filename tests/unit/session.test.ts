import { describe, expect, it } from "vitest";
import { adminSessionCookie, SESSION_COOKIE, SESSION_TTL_SECONDS, singleSessionCookieHeader } from "~/lib/auth/session.server";

// The cookie side of the admin session (the D1 side is in tests/workers/admin-sign-in.test.ts).
const OLD = "unit-test-secret-old-0123456789abcdef0123456789";
const NEW = "unit-test-secret-new-0123456789abcdef0123456789";

async function issue(secrets: string[], id = "session-id-1") {
  return adminSessionCookie(secrets).serialize(id);
}

function withCookie(...pairs: string[]) {
  return new Request("http://localhost/admin", { headers: { Cookie: ["other=1", ...pairs].join("; ") } });
}

describe("session cookies", () => {
  it("is __Host- prefixed: Secure, Path=/, no Domain, HttpOnly, SameSite=Lax, 12 hours", async () => {
    const cookie = await issue([NEW]);
    expect(cookie.startsWith(`${SESSION_COOKIE}=`)).toBe(true);
    expect(SESSION_COOKIE).toMatch(/^__Host-/);
    expect(cookie).toContain("; Path=/");
    expect(cookie).toContain("; Secure");
    expect(cookie).toContain("; HttpOnly");
    expect(cookie).toContain("; SameSite=Lax");
    expect(cookie).toContain(`; Max-Age=${SESSION_TTL_SECONDS}`);
    expect(cookie).not.toMatch(/domain=/i);
  });

  it("carries only the session id, signed", async () => {
    const [pair] = (await issue([NEW], "abc")).split(";");
    const value = decodeURIComponent(pair.slice(SESSION_COOKIE.length + 1));
    expect(value.split(".")).toHaveLength(2);
    expect(await adminSessionCookie([NEW]).parse(pair)).toBe("abc");
  });

  it("rotates secrets: the first signs, every one verifies, a dropped one no longer does", async () => {
    const [signedOld] = (await issue([OLD], "old-id")).split(";");
    expect(await adminSessionCookie([NEW, OLD]).parse(signedOld)).toBe("old-id");
    expect(await adminSessionCookie([NEW]).parse(signedOld)).toBeNull();
    const [signedNew] = (await issue([NEW, OLD], "new-id")).split(";");
    expect(await adminSessionCookie([NEW]).parse(signedNew)).toBe("new-id");
    expect(await adminSessionCookie([OLD]).parse(signedNew)).toBeNull();
  });

  it("refuses a flipped bit and junk", async () => {
    const [pair] = (await issue([NEW])).split(";");
    const flipped = pair.slice(0, -2) + (pair.at(-2) === "A" ? "B" : "A") + pair.at(-1);
    expect(await adminSessionCookie([NEW]).parse(flipped)).toBeNull();
    for (const junk of [`${SESSION_COOKIE}=`, `${SESSION_COOKIE}=a.b.c`, `${SESSION_COOKIE}=%%%.%%%`]) {
      expect(await adminSessionCookie([NEW]).parse(junk)).toBeFalsy();
    }
  });

  it("counts a session cookie sent twice as none, whatever their order", async () => {
    const [a] = (await issue([NEW], "a")).split(";");
    const [b] = (await issue([NEW], "b")).split(";");
    expect(singleSessionCookieHeader(withCookie(a))).toBe(a);
    expect(singleSessionCookieHeader(withCookie(a, b))).toBeNull();
    expect(singleSessionCookieHeader(withCookie(b, a))).toBeNull();
    expect(singleSessionCookieHeader(withCookie(a, a))).toBeNull();
    expect(singleSessionCookieHeader(withCookie())).toBeNull();
  });
});

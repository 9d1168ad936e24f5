import { describe, expect, it } from "vitest";
import { clearSessionCookie, createSessionCookie, readSession, SESSION_TTL_SECONDS } from "~/lib/admin/session.server";

const SECRET = "unit-test-secret-0123456789abcdef0123456789";
const NOW = Date.parse("2026-06-01T12:00:00Z");

async function issue(url = "http://localhost/admin/login", nowMs = NOW) {
  return createSessionCookie({ request: new Request(url), secret: SECRET, sub: "password:admin", role: "admin", ver: "v1", nowMs });
}

function withCookie(setCookie: string) {
  return new Request("http://localhost/admin", { headers: { Cookie: `other=1; ${setCookie.split(";")[0]}` } });
}

describe("session cookies", () => {
  it("round-trips a payload and expires after 12 hours", async () => {
    const cookie = await issue();
    expect(await readSession(withCookie(cookie), SECRET, NOW + 1000)).toMatchObject({ sub: "password:admin", role: "admin", ver: "v1" });
    expect(await readSession(withCookie(cookie), SECRET, NOW + SESSION_TTL_SECONDS * 1000 - 1000)).not.toBeNull();
    expect(await readSession(withCookie(cookie), SECRET, NOW + SESSION_TTL_SECONDS * 1000)).toBeNull();
  });

  it("sets HttpOnly, SameSite=Lax, Max-Age 43200, and Secure except on plain-http loopback", async () => {
    const local = await issue();
    expect(local).toMatch(/; Path=\/; HttpOnly; SameSite=Lax; Max-Age=43200$/);
    expect(await issue("https://forms.example.org/admin/login")).toMatch(/; Secure$/);
    expect(await issue("http://forms.example.org/admin/login")).toMatch(/; Secure$/);
    expect(clearSessionCookie(new Request("https://forms.example.org/admin"))).toContain("Max-Age=0");
  });

  it("refuses another secret, a flipped bit, and junk", async () => {
    const cookie = await issue();
    expect(await readSession(withCookie(cookie), `${SECRET}x`, NOW)).toBeNull();
    const [pair] = cookie.split(";");
    const flipped = pair.slice(0, -2) + (pair.at(-2) === "A" ? "B" : "A") + pair.at(-1);
    expect(await readSession(withCookie(flipped), SECRET, NOW)).toBeNull();
    for (const junk of ["gp_admin_session=", "gp_admin_session=a.b.c", "gp_admin_session=%%%.%%%"]) {
      expect(await readSession(withCookie(junk), SECRET, NOW)).toBeNull();
    }
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { appFetch, countRows, testEnv } from "./helpers";
import { ADMIN_PASSWORD, adminEnv, adminGet, adminPost, clearAdminTables, VIEWER_PASSWORD } from "./admin-helpers";
import { encodeBase64Url } from "~/lib/crypto/base64url";

beforeEach(clearAdminTables);
afterEach(() => vi.restoreAllMocks());

async function signIn(password: string, appEnv?: Env, ip = "198.51.100.4") {
  return appFetch(adminPost("/admin/login", { password, next: "/admin/submissions" }, { "CF-Connecting-IP": ip }), appEnv ?? (await adminEnv()));
}

describe("password sign-in", () => {
  it("issues a 12-hour HttpOnly SameSite=Lax cookie for the admin password, and the console opens", async () => {
    const response = await signIn(ADMIN_PASSWORD);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/admin/submissions");
    const cookie = response.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^gp_admin_session=[\w-]+\.[\w-]+; /);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).toContain("Max-Age=43200");
    expect(cookie).toContain("Path=/;");
    // Plain http to localhost is the one place the cookie may go without Secure.
    expect(cookie).not.toContain("Secure");
    const page = await appFetch(adminGet("/admin", cookie.split(";")[0]), await adminEnv());
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Signed in as admin<");
    const audit = await countRows("audit_log");
    expect(audit).toBe(1);
  });

  it("marks the cookie Secure on https", async () => {
    const request = adminPost("/admin/login", { password: ADMIN_PASSWORD }, { Host: "forms.example.org", Origin: "https://forms.example.org" });
    const response = await appFetch(new Request(request.url.replace("http://localhost", "https://forms.example.org"), request), await adminEnv());
    expect(response.status).toBe(303);
    expect(response.headers.get("set-cookie")).toContain("; Secure");
  });

  it("signs the viewer in with the viewer role", async () => {
    const response = await signIn(VIEWER_PASSWORD);
    const page = await appFetch(adminGet("/admin", (response.headers.get("set-cookie") ?? "").split(";")[0]), await adminEnv());
    expect(await page.text()).toContain("Signed in as viewer<");
  });

  it("refuses a wrong password with 401 and no cookie", async () => {
    const response = await signIn("not the password");
    expect(response.status).toBe(401);
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(await response.text()).toContain("That password is not right.");
  });

  it("rate-limits attempts per IP: the 11th in 15 minutes is refused even with the right password", async () => {
    const appEnv = await adminEnv();
    for (let i = 0; i < 10; i++) expect((await signIn("guess " + i, appEnv)).status).toBe(401);
    const blocked = await signIn(ADMIN_PASSWORD, appEnv);
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("set-cookie")).toBeNull();
    // Another address is counted on its own.
    expect((await signIn(ADMIN_PASSWORD, appEnv, "198.51.100.99")).status).toBe(303);
  });

  it("ends a session when the password hash changes", async () => {
    const cookie = ((await signIn(ADMIN_PASSWORD)).headers.get("set-cookie") ?? "").split(";")[0];
    const rotated = await adminEnv({ ADMIN_PASSWORD_HASH: (await adminEnv()).VIEWER_PASSWORD_HASH });
    expect((await appFetch(adminGet("/admin", cookie), rotated)).status).toBe(303);
  });

  it("refuses a forged or tampered cookie", async () => {
    const cookie = ((await signIn(VIEWER_PASSWORD)).headers.get("set-cookie") ?? "").split(";")[0];
    const [name, value] = cookie.split("=");
    const [body, sig] = value.split(".");
    const payload = JSON.parse(atob(body.replace(/-/g, "+").replace(/_/g, "/")));
    const forged = encodeBase64Url(new TextEncoder().encode(JSON.stringify({ ...payload, role: "admin" })));
    expect((await appFetch(adminGet("/admin", `${name}=${forged}.${sig}`), await adminEnv())).status).toBe(303);
  });
});

describe("when nothing is configured", () => {
  it("stays closed, says how to open it, and refuses every sign-in", async () => {
    const closed = testEnv({ ADMIN_PASSWORD_HASH: "", VIEWER_PASSWORD_HASH: "", SESSION_SECRET: "" });
    const page = await appFetch(adminGet("/admin/login"), closed);
    const html = await page.text();
    expect(html).toContain("The operator console is closed");
    expect(html).toContain("npm run admin:hash-password");
    expect(html).not.toContain('name="password"');
    expect((await signIn("", closed)).status).toBe(503);
    expect((await appFetch(adminGet("/admin"), closed)).status).toBe(303);
  });

  it("stays closed when a hash is set without a SESSION_SECRET", async () => {
    const noSecret = await adminEnv({ SESSION_SECRET: "short" });
    expect(await (await appFetch(adminGet("/admin/login"), noSecret)).text()).toContain("SESSION_SECRET must be set");
    expect((await signIn(ADMIN_PASSWORD, noSecret)).status).toBe(503);
  });
});

describe("Cloudflare Access", () => {
  async function accessSetup() {
    const pair = (await crypto.subtle.generateKey(
      { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
      true,
      ["sign", "verify"],
    )) as CryptoKeyPair;
    const jwk = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as JsonWebKey;
    const jwks = { keys: [{ ...jwk, kid: "k1", alg: "RS256" }] };
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input) => {
      if (String(input instanceof Request ? input.url : input) === "https://team.cloudflareaccess.com/cdn-cgi/access/certs") {
        return Response.json(jwks);
      }
      throw new Error(`unexpected fetch ${String(input)}`);
    });
    const sign = async (claims: Record<string, unknown>) => {
      const enc = (v: unknown) => encodeBase64Url(new TextEncoder().encode(JSON.stringify(v)));
      const input = `${enc({ alg: "RS256", kid: "k1" })}.${enc(claims)}`;
      const sig = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", pair.privateKey, new TextEncoder().encode(input));
      return `${input}.${encodeBase64Url(sig)}`;
    };
    const now = Math.floor(Date.now() / 1000);
    const claims = { aud: ["aud-123"], iss: "https://team.cloudflareaccess.com", email: "ops@example.org", sub: "u1", iat: now, exp: now + 600 };
    const appEnv = testEnv({ CF_ACCESS_TEAM_DOMAIN: "team.cloudflareaccess.com", CF_ACCESS_AUD: "aud-123" });
    return { sign, claims, appEnv };
  }

  it("signs a person in as admin with a valid JWT, and refuses a wrong audience or an expired token", async () => {
    const { sign, claims, appEnv } = await accessSetup();
    const withJwt = async (c: Record<string, unknown>) =>
      appFetch(new Request("http://localhost/admin", { headers: { "Cf-Access-Jwt-Assertion": await sign(c) } }), appEnv);
    const ok = await withJwt(claims);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("Signed in as ops@example.org (admin)");
    expect((await withJwt({ ...claims, aud: ["other"] })).status).toBe(303);
    expect((await withJwt({ ...claims, exp: claims.iat - 3600 })).status).toBe(303);
    expect((await withJwt({ ...claims, iss: "https://evil.cloudflareaccess.com" })).status).toBe(303);
  });
});

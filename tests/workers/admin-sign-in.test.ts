import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:test";
import { appFetch, countingDb, countRows, standin, standinToken, testEnv } from "./helpers";
import { expectConsoleErrors } from "../support/fail-on-console";
import {
  ADMIN_PASSWORD,
  adminEnv,
  adminGet,
  adminPost,
  clearAdminTables,
  SESSION_SECRET,
  sessionCookie,
  VIEWER_PASSWORD,
} from "./admin-helpers";
import { LOGIN_GLOBAL_RULE, LOGIN_MISS_RULE, LOGIN_PREFIX48_RULE, signInBudget } from "~/lib/auth/sign-in-budget.server";
import { hitRateLimits } from "~/lib/storage/rate-limits.server";
import { encodeBase64Url } from "~/lib/crypto/base64";

beforeEach(async () => {
  await clearAdminTables();
  await standin.reset();
});
afterEach(() => vi.restoreAllMocks());

/**
 * The middle of the current 15-minute budget window: the app's clock in these tests, so a run of
 * attempts never straddles two windows, however slow the machine.
 */
const MID_WINDOW = Math.floor(Date.now() / 900_000) * 900_000 + 450_000;

async function signIn(password: string, appEnv?: Env, ip = "198.51.100.4") {
  return appFetch(
    adminPost("/admin/login", { password, next: "/admin/submissions" }, { "CF-Connecting-IP": ip }),
    appEnv ?? (await adminEnv()),
    { now: () => MID_WINDOW },
  );
}

describe("password sign-in", () => {
  it("issues a 12-hour HttpOnly SameSite=Lax cookie for the admin password, and the console opens", async () => {
    const response = await signIn(ADMIN_PASSWORD);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/admin/submissions");
    const cookie = response.headers.get("set-cookie") ?? "";
    // ADR 014: the __Host- prefix, which browsers only keep with Secure and Path=/ (Chromium keeps
    // Secure cookies on http://localhost: tests/e2e/admin.test.ts), and only a signed id inside.
    expect(cookie).toMatch(/^__Host-gp_admin_session=[^;.]+\.[^;]+; /);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).toContain("Max-Age=43200");
    expect(cookie).toContain("Path=/;");
    expect(cookie).toContain("Secure");
    expect(await countRows("admin_sessions")).toBe(1);
    const page = await appFetch(adminGet("/admin", cookie.split(";")[0]), await adminEnv());
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Signed in as admin<");
    const audit = await countRows("audit_log");
    expect(audit).toBe(1);
  });

  it("marks the cookie Secure on https", async () => {
    const request = adminPost(
      "/admin/login",
      { password: ADMIN_PASSWORD },
      { Host: "forms.example.org", Origin: "https://forms.example.org" },
    );
    const response = await appFetch(
      new Request(request.url.replace("http://localhost", "https://forms.example.org"), request),
      await adminEnv(),
    );
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

  it("rate-limits attempts per IP: the 11th in 15 minutes is refused even with the right password", { timeout: 30_000 }, async () => {
    const appEnv = await adminEnv();
    for (let i = 0; i < 10; i++) expect((await signIn("guess " + i, appEnv)).status).toBe(401);
    const blocked = await signIn(ADMIN_PASSWORD, appEnv);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(blocked.headers.get("set-cookie")).toBeNull();
    // Another address is counted on its own.
    expect((await signIn(ADMIN_PASSWORD, appEnv, "198.51.100.99")).status).toBe(303);
  });

  // Each sign-in hashes a password (PBKDF2), so this test makes few of them and counts guesses directly;
  // its time limit is generous for a machine under load, and nothing in it reads the wall clock.
  it("does not count sign-ins with the right password toward the lock-out", { timeout: 30_000 }, async () => {
    const appEnv = await adminEnv();
    // Twelve sign-ins in one window, more than its budget of ten: the owner is never locked out by signing in.
    for (let i = 0; i < 12; i++) expect((await signIn(ADMIN_PASSWORD, appEnv)).status).toBe(303);
    // Guesses still count: nine of them and the right password still gets in, the tenth guess is
    // refused, and then the right password is refused too until the window ends.
    const misses = [signInBudget({ ip: "198.51.100.4" }).misses];
    for (let i = 0; i < 9; i++) await hitRateLimits(env.DB, misses, MID_WINDOW);
    expect((await signIn(ADMIN_PASSWORD, appEnv)).status).toBe(303);
    expect((await signIn("guess 9", appEnv)).status).toBe(401);
    expect((await signIn(ADMIN_PASSWORD, appEnv)).status).toBe(429);
  });

  it("says the same wait on the page as in Retry-After", async () => {
    const appEnv = await adminEnv();
    const misses = [signInBudget({ ip: "198.51.100.4" }).misses];
    for (let i = 0; i < LOGIN_MISS_RULE.limit; i++) await hitRateLimits(env.DB, misses, MID_WINDOW);
    const blocked = await signIn("guess 10", appEnv);
    expect(blocked.status).toBe(429);
    const seconds = Number(blocked.headers.get("retry-after"));
    expect(seconds).toBeGreaterThan(0);
    // Half the window is left at MID_WINDOW: 450 s, which the page says as 8 minutes, never fewer.
    expect(seconds).toBe(450);
    expect(blocked.headers.get("RateLimit")).toBe('"misses";r=0;t=450');
    expect(blocked.headers.get("RateLimit-Policy")).toBe(`"misses";q=${LOGIN_MISS_RULE.limit};w=900`);
    const html = await blocked.text();
    expect(html).toContain(`Try again in ${Math.ceil(seconds / 60)} minutes.`);
    expect(html).not.toContain("Wait 15 minutes");
  });

  it("ends a session when the password hash changes", async () => {
    const cookie = ((await signIn(ADMIN_PASSWORD)).headers.get("set-cookie") ?? "").split(";")[0];
    const rotated = await adminEnv({ ADMIN_PASSWORD_HASH: (await adminEnv()).VIEWER_PASSWORD_HASH });
    expect((await appFetch(adminGet("/admin", cookie), rotated)).status).toBe(303);
  });

  it("refuses a forged or tampered cookie", async () => {
    const cookie = ((await signIn(VIEWER_PASSWORD)).headers.get("set-cookie") ?? "").split(";")[0];
    const eq = cookie.indexOf("=");
    const [name, value] = [cookie.slice(0, eq), decodeURIComponent(cookie.slice(eq + 1))];
    const [body, sig] = value.split(".");
    // Another session's id under this one's signature.
    const other = await sessionCookie("admin");
    const otherBody = decodeURIComponent(other.slice(other.indexOf("=") + 1)).split(".")[0];
    expect(otherBody).not.toBe(body);
    expect((await appFetch(adminGet("/admin", `${name}=${encodeURIComponent(`${otherBody}.${sig}`)}`), await adminEnv())).status).toBe(303);
    for (const junk of ["", "x", "a.b", "%%%.%%%", "e30.!!!", `${body}.${sig}x`]) {
      expect((await appFetch(adminGet("/admin", `${name}=${junk}`), await adminEnv())).status, junk).toBe(303);
    }
  });
});

describe("server-side sessions", () => {
  const cookieOf = (response: Response) => (response.headers.get("set-cookie") ?? "").split(";")[0];

  it("ends the session on sign-out: a copy of the cookie no longer works", async () => {
    const appEnv = await adminEnv();
    const cookie = cookieOf(await signIn(ADMIN_PASSWORD, appEnv));
    expect((await appFetch(adminGet("/admin", cookie), appEnv)).status).toBe(200);
    const out = await appFetch(adminPost("/admin/logout", {}, { Cookie: cookie }), appEnv);
    expect(out.status).toBe(303);
    expect(out.headers.get("set-cookie")).toMatch(/^__Host-gp_admin_session=; .*Expires=Thu, 01 Jan 1970/);
    expect(await countRows("admin_sessions")).toBe(0);
    // The copy an attacker kept is refused, as documents and as data.
    expect((await appFetch(adminGet("/admin", cookie), appEnv)).status).toBe(303);
    expect((await appFetch(adminGet("/admin/export?form=contact", cookie), appEnv)).status).toBe(401);
  });

  it("reads a console page's session once, though its frame and the page each ask who is signed in", async () => {
    const appEnv = await adminEnv();
    const cookie = cookieOf(await signIn(ADMIN_PASSWORD, appEnv));
    const reads = (statements: string[][]) => statements.flat().filter((sql) => sql.includes("FROM admin_sessions")).length;
    const first = countingDb(env.DB);
    expect((await appFetch(adminGet("/admin/submissions", cookie), { ...appEnv, DB: first.db })).status).toBe(200);
    expect(reads(first.statements())).toBe(1);
    // Once per request, not per isolate: the next request reads it again, and finds it ended.
    expect((await appFetch(adminPost("/admin/logout", {}, { Cookie: cookie }), appEnv)).status).toBe(303);
    const after = countingDb(env.DB);
    expect((await appFetch(adminGet("/admin/submissions", cookie), { ...appEnv, DB: after.db })).status).toBe(303);
    expect(reads(after.statements())).toBe(1);
  });

  it("lets an admin sign out everywhere, and not a viewer", async () => {
    const appEnv = await adminEnv();
    const admin = cookieOf(await signIn(ADMIN_PASSWORD, appEnv));
    const otherAdmin = cookieOf(await signIn(ADMIN_PASSWORD, appEnv, "198.51.100.5"));
    const viewer = cookieOf(await signIn(VIEWER_PASSWORD, appEnv, "198.51.100.6"));
    const refused = await appFetch(adminPost("/admin/logout", { intent: "everywhere" }, { Cookie: viewer }), appEnv);
    expect(refused.status).toBe(403);
    expect(await countRows("admin_sessions")).toBe(3);
    const out = await appFetch(adminPost("/admin/logout", { intent: "everywhere" }, { Cookie: admin }), appEnv);
    expect(out.status).toBe(303);
    for (const cookie of [admin, otherAdmin, viewer]) expect((await appFetch(adminGet("/admin", cookie), appEnv)).status).toBe(303);
    const audit = await env.DB.prepare("SELECT action, detail FROM audit_log WHERE action = 'sign-out.everywhere'").first<
      Record<string, string>
    >();
    expect(JSON.parse(audit?.detail ?? "{}")).toEqual({ sessions: 3 });
  });

  it("refuses two session cookies in one request, in either order", async () => {
    const appEnv = await adminEnv();
    const admin = cookieOf(await signIn(ADMIN_PASSWORD, appEnv));
    const viewer = cookieOf(await signIn(VIEWER_PASSWORD, appEnv, "198.51.100.6"));
    for (const header of [`${admin}; ${viewer}`, `${viewer}; ${admin}`, `${admin}; ${admin}`, `${admin}; __Host-gp_admin_session=junk`]) {
      expect((await appFetch(adminGet("/admin", header), appEnv)).status, header).toBe(303);
    }
    expect((await appFetch(adminGet("/admin", `theme=dark; ${admin}`), appEnv)).status).toBe(200);
  });

  it("keeps sessions across a SESSION_SECRET rotation while the old secret is listed, and ends them when it goes", async () => {
    const cookie = cookieOf(await signIn(ADMIN_PASSWORD));
    const NEW = "rotated-session-secret-0123456789abcdef0123456789";
    expect((await appFetch(adminGet("/admin", cookie), await adminEnv({ SESSION_SECRET: `${NEW} ${SESSION_SECRET}` }))).status).toBe(200);
    expect((await appFetch(adminGet("/admin", cookie), await adminEnv({ SESSION_SECRET: NEW }))).status).toBe(303);
    // New sessions are signed with the first secret.
    const fresh = cookieOf(await signIn(ADMIN_PASSWORD, await adminEnv({ SESSION_SECRET: `${NEW} ${SESSION_SECRET}` }), "198.51.100.8"));
    expect((await appFetch(adminGet("/admin", fresh), await adminEnv({ SESSION_SECRET: NEW }))).status).toBe(200);
  });

  it("expires a session after 12 hours, in D1 as well as in the cookie", async () => {
    const cookie = cookieOf(await signIn(ADMIN_PASSWORD));
    await env.DB.prepare("UPDATE admin_sessions SET expires_at = ?1")
      .bind(Date.now() - 1)
      .run();
    expect((await appFetch(adminGet("/admin", cookie), await adminEnv())).status).toBe(303);
  });
});

describe("sign-in budgets", () => {
  /** Spends the whole site's budget for this window, as a hundred strangers' guesses would. */
  async function exhaustSiteBudget() {
    const global = [signInBudget({ ip: "192.0.2.1" }).site!];
    for (let i = 0; i < LOGIN_GLOBAL_RULE.limit; i++) await hitRateLimits(env.DB, global, MID_WINDOW);
  }

  async function signInWithCheck(password: string, token: string | null, ip = "203.0.113.200", appEnv?: Env) {
    const fields: Record<string, string> = { password, next: "/admin/submissions" };
    if (token !== null) fields["cf-turnstile-response"] = token;
    return appFetch(adminPost("/admin/login", fields, { "CF-Connecting-IP": ip }), appEnv ?? (await adminEnv()), { now: () => MID_WINDOW });
  }

  it("past the site-wide budget, asks for a Turnstile pass instead of refusing everyone, and lets the right password in with one", async () => {
    await exhaustSiteBudget();
    const asked = await signInWithCheck(ADMIN_PASSWORD, null);
    expect(asked.status).toBe(429);
    expect(asked.headers.get("Gatepost-Error-Code")).toBe("admin_check_required");
    expect(asked.headers.get("set-cookie")).toBeNull();
    const html = await asked.text();
    expect(html).toContain("Complete the check below");
    // The page names what the widget needs (its sitekey and action) for the browser to render it.
    expect(html).toContain("1x00000000000000000000AA");
    expect(html).toContain("admin-sign-in");
    expect(await standin.calls()).toHaveLength(0);

    const passed = await signInWithCheck(ADMIN_PASSWORD, standinToken({ action: "admin-sign-in" }));
    expect(passed.status).toBe(303);
    expect(passed.headers.get("set-cookie")).toMatch(/^__Host-gp_admin_session=/);
    const [call] = await standin.calls();
    expect(call.remoteip).toBe("203.0.113.200");
  });

  it("still refuses a wrong password, a failed check, a check made for another action, and a spent token (fail closed)", async () => {
    await exhaustSiteBudget();
    expect((await signInWithCheck("a wrong guess", standinToken({ action: "admin-sign-in" }))).status).toBe(401);
    const otherAction = await signInWithCheck(ADMIN_PASSWORD, standinToken({ action: "contact" }));
    expect(otherAction.status).toBe(400);
    expect(otherAction.headers.get("Gatepost-Error-Code")).toBe("turnstile_action_mismatch");
    const token = standinToken({ action: "admin-sign-in" });
    expect((await signInWithCheck(ADMIN_PASSWORD, token)).status).toBe(303);
    const spent = await signInWithCheck(ADMIN_PASSWORD, token);
    expect(spent.status).toBe(400);
    expect(spent.headers.get("set-cookie")).toBeNull();
    const failing = await adminEnv({ TURNSTILE_SECRET_KEY: "2x0000000000000000000000000000000AA" });
    const failed = await signInWithCheck(ADMIN_PASSWORD, standinToken({ action: "admin-sign-in" }), "203.0.113.201", failing);
    expect(failed.status).toBe(400);
    expect(failed.headers.get("set-cookie")).toBeNull();
  });

  it("fails closed while the provider is down: no check, no sign-in", async () => {
    await exhaustSiteBudget();
    await standin.setMode("http500");
    const logged = expectConsoleErrors(/Turnstile verification unavailable for the sign-in/);
    const response = await signInWithCheck(ADMIN_PASSWORD, standinToken({ action: "admin-sign-in" }));
    expect(response.status).toBe(503);
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(logged().length).toBeGreaterThan(0);
  });

  it("keeps the per-address budget: a Turnstile pass does not lift it", async () => {
    await exhaustSiteBudget();
    const appEnv = await adminEnv();
    const misses = [signInBudget({ ip: "203.0.113.202" }).misses];
    for (let i = 0; i < LOGIN_MISS_RULE.limit; i++) await hitRateLimits(env.DB, misses, MID_WINDOW);
    const blocked = await signInWithCheck(ADMIN_PASSWORD, standinToken({ action: "admin-sign-in" }), "203.0.113.202", appEnv);
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("Gatepost-Error-Code")).toBe("admin_rate_limited");
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await standin.calls()).toHaveLength(0);
  });

  it("counts IPv6 guessers by /48 as well as by /64", async () => {
    const appEnv = await adminEnv();
    // Guessers rotating /64s inside one /48: each /64 stays under its own limit of 10.
    const prefix = signInBudget({ ip: "2001:db8:7:1::1" }).attempts.filter((r) => r.key.startsWith("admin-login:ip48:"));
    for (let i = 0; i < LOGIN_PREFIX48_RULE.limit; i++) await hitRateLimits(env.DB, prefix, MID_WINDOW);
    const blocked = await signIn(ADMIN_PASSWORD, appEnv, "2001:db8:7:99::1");
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another /48 is counted on its own.
    expect((await signIn(ADMIN_PASSWORD, appEnv, "2001:db8:8::1")).status).toBe(303);
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
    const claims = {
      aud: ["aud-123"],
      iss: "https://team.cloudflareaccess.com",
      email: "ops@example.org",
      sub: "u1",
      iat: now,
      exp: now + 600,
    };
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

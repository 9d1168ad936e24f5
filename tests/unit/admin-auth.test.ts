import { describe, expect, it } from "vitest";
import { requireSameOrigin, requireSameOriginRead, safeNext } from "~/lib/auth/admin-user.server";
import { readAdminConfig } from "~/lib/settings/admin.server";
import { signInBudget, type SignInBudget } from "~/lib/auth/sign-in-budget.server";
import { ipv6Prefix48 } from "~/lib/http/client-ip.server";

describe("safeNext", () => {
  it.each([
    ["/admin/submissions?status=dead", "/admin/submissions?status=dead"],
    ["/admin", "/admin"],
    ["//evil.example/admin", "/admin"],
    ["https://evil.example/admin", "/admin"],
    ["/admin//evil.example", "/admin"],
    ["/administrator", "/admin"],
    // A browser reads the backslash as a slash: the path it would request is still in /admin.
    ["/admin\\evil", "/admin/evil"],
    [null, "/admin"],
  ])("keeps only paths inside /admin: %s", (next, expected) => {
    expect(safeNext(next)).toBe(expected);
  });

  // A browser resolves dot segments (also written %2e), turns backslashes into slashes and reads "//"
  // as a host, so each is judged after the browser's own normalisation, never on the raw text.
  it.each([
    "/admin/../f/contact",
    "/admin/./../f/contact",
    "/admin/%2e%2e/f/contact",
    "/admin/%2E%2E/f/contact",
    "/admin/.%2e/f/contact",
    "/admin/sub/../../f/contact",
    "/admin/..",
    "/admin/..?x=1",
    "/admin/..%2ff/contact",
    "/admin/..%5Cf/contact",
    "/admin/%2f%2fevil.example",
    "/admin/%5c%5cevil.example",
    "/admin/..\\f/contact",
    "/admin/%252e%252e/f/contact",
  ])("refuses %s, which a browser would take out of /admin", (next) => {
    expect(safeNext(next)).toBe("/admin");
  });

  it("gives back the normalised path, so the Location a browser follows is the path that was checked", () => {
    expect(safeNext("/admin/./submissions")).toBe("/admin/submissions");
    expect(safeNext("/admin/x/../audit")).toBe("/admin/audit");
    expect(safeNext("/admin/submissions?q=a/../b")).toBe("/admin/submissions?q=a/../b");
  });

  it.each(["/admin?\x00", "/admin/\x01x", "/admin?a=\r\nSet-Cookie:x", "/admin/ x", "/admin?é", "/admin\t", `/admin/${"a".repeat(3000)}`])(
    "refuses what no Location header can carry: %j",
    (next) => {
      const safe = safeNext(next);
      expect(safe).toBe("/admin");
      expect(() => new Headers({ Location: safe })).not.toThrow();
    },
  );
});

describe("requireSameOriginRead", () => {
  const get = (headers: Record<string, string>) => new Request("https://forms.example.org/admin/export?form=contact", { headers });
  it("passes only what the browser marks same-origin", () => {
    expect(() => requireSameOriginRead(get({ "Sec-Fetch-Site": "same-origin" }))).not.toThrow();
    for (const site of ["cross-site", "same-site", "none", ""]) {
      expect(() => requireSameOriginRead(get(site ? { "Sec-Fetch-Site": site } : {})), site).toThrow();
    }
  });
});

describe("sign-in budgets", () => {
  it("counts an address, the whole site, and an IPv6 address's /48; a known device by itself alone", () => {
    const keys = (budget: SignInBudget) => [...budget.attempts.map((r) => r.key), budget.misses.key, budget.site?.key ?? null];
    expect(keys(signInBudget({ ip: "203.0.113.9" }))).toEqual([
      "admin-login:ip:203.0.113.9",
      "admin-login:ip:203.0.113.9:miss",
      "admin-login:all",
    ]);
    expect(keys(signInBudget({ ip: "2001:db8:1:2::5" }))).toEqual([
      "admin-login:ip:2001:db8:1:2::/64",
      "admin-login:ip48:2001:db8:1::/48",
      "admin-login:ip:2001:db8:1:2::/64:miss",
      "admin-login:all",
    ]);
    expect(keys(signInBudget({ device: "d" }))).toEqual(["admin-login:device:d", "admin-login:device:d:miss", null]);
    expect(ipv6Prefix48("2001:db8:1:ffff:1:2:3:4")).toBe(ipv6Prefix48("2001:0db8:0001:0:9::1"));
    expect(ipv6Prefix48("198.51.100.1")).toBeNull();
    expect(ipv6Prefix48(null)).toBeNull();
  });
});

describe("requireSameOrigin", () => {
  const post = (headers: Record<string, string>) => new Request("https://forms.example.org/admin/erase", { method: "POST", headers });
  it("passes a same-origin browser POST", () => {
    expect(() => requireSameOrigin(post({ Origin: "https://forms.example.org", "Sec-Fetch-Site": "same-origin" }))).not.toThrow();
    expect(() => requireSameOrigin(post({ Origin: "https://forms.example.org" }))).not.toThrow();
  });
  it.each([
    [{ Origin: "https://evil.example" }],
    [{ Origin: "https://forms.example.org", "Sec-Fetch-Site": "cross-site" }],
    [{ Origin: "https://forms.example.org", "Sec-Fetch-Site": "same-site" }],
    [{ Origin: "null" }],
    [{ "Sec-Fetch-Site": "none" }],
    [{}],
  ])("refuses %j with 403", (headers) => {
    try {
      requireSameOrigin(post(headers));
      expect.unreachable("should have thrown");
    } catch (thrown) {
      expect((thrown as Response).status).toBe(403);
    }
  });
});

describe("readAdminConfig", () => {
  it("is closed by default and explains why", () => {
    const config = readAdminConfig({});
    expect(config.open).toBe(false);
    expect(config.problems.join(" ")).toContain("npm run admin:hash-password");
  });
  it("refuses a hash that is not in the server's format", () => {
    const config = readAdminConfig({ ADMIN_PASSWORD_HASH: "hunter2", SESSION_SECRET: "x".repeat(40) });
    expect(config.open).toBe(false);
    expect(config.problems[0]).toContain("ADMIN_PASSWORD_HASH is not a hash");
  });
  it("takes several space-separated session secrets for rotation, and refuses a set with a short one", () => {
    const hash = "pbkdf2-sha256:100000:AAAAAAAAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    const rotating = readAdminConfig({ ADMIN_PASSWORD_HASH: hash, SESSION_SECRET: ` ${"n".repeat(40)}  ${"o".repeat(40)} ` });
    expect(rotating.sessionSecrets).toEqual(["n".repeat(40), "o".repeat(40)]);
    expect(rotating.passwordSignIn).toBe(true);
    const weak = readAdminConfig({ ADMIN_PASSWORD_HASH: hash, SESSION_SECRET: `${"n".repeat(40)} short` });
    expect(weak.sessionSecrets).toEqual([]);
    expect(weak.passwordSignIn).toBe(false);
    expect(weak.problems.join(" ")).toContain("SESSION_SECRET");
  });

  it("opens through Cloudflare Access alone, and wants both of its settings", () => {
    expect(readAdminConfig({ CF_ACCESS_TEAM_DOMAIN: "t.cloudflareaccess.com", CF_ACCESS_AUD: "a" }).open).toBe(true);
    expect(readAdminConfig({ CF_ACCESS_TEAM_DOMAIN: "t.cloudflareaccess.com" }).open).toBe(false);
  });
});

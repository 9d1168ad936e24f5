import { describe, expect, it } from "vitest";
import { requireSameOrigin, safeNext } from "~/lib/admin/auth.server";
import { readAdminConfig } from "~/lib/admin/config.server";

describe("safeNext", () => {
  it.each([
    ["/admin/submissions?status=dead", "/admin/submissions?status=dead"],
    ["/admin", "/admin"],
    ["//evil.example/admin", "/admin"],
    ["https://evil.example/admin", "/admin"],
    ["/admin//evil.example", "/admin"],
    ["/administrator", "/admin"],
    ["/admin\\evil", "/admin"],
    [null, "/admin"],
  ])("keeps only paths inside /admin: %s", (next, expected) => {
    expect(safeNext(next)).toBe(expected);
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
  it("opens through Cloudflare Access alone, and wants both of its settings", () => {
    expect(readAdminConfig({ CF_ACCESS_TEAM_DOMAIN: "t.cloudflareaccess.com", CF_ACCESS_AUD: "a" }).open).toBe(true);
    expect(readAdminConfig({ CF_ACCESS_TEAM_DOMAIN: "t.cloudflareaccess.com" }).open).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import {
  applySecurityHeaders,
  buildContentSecurityPolicy,
  createNonce,
  PERMISSIONS_POLICY,
  standinScriptOrigin,
} from "~/lib/http/security-headers.server";

function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp.split(";").map((part) => {
      const [name, ...values] = part.trim().split(/\s+/);
      return [name, values];
    }),
  );
}

describe("createNonce", () => {
  it("gives 128 random bits in base64, different every call", () => {
    const nonces = new Set(Array.from({ length: 50 }, createNonce));
    expect(nonces.size).toBe(50);
    for (const nonce of nonces) {
      expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
      expect(atob(nonce)).toHaveLength(16);
    }
  });
});

describe("buildContentSecurityPolicy", () => {
  it("has exactly the directives of ADR 006 for Cloudflare's script URL", () => {
    const csp = directives(buildContentSecurityPolicy("abc", "https://challenges.cloudflare.com/turnstile/v0/api.js"));
    expect(Object.fromEntries(csp)).toEqual({
      "default-src": ["'self'"],
      "script-src": ["'nonce-abc'", "'strict-dynamic'", "https://challenges.cloudflare.com"],
      "frame-src": ["https://challenges.cloudflare.com"],
      "object-src": ["'none'"],
      "base-uri": ["'none'"],
      "frame-ancestors": ["'none'"],
      "form-action": ["'self'"],
    });
  });

  it("adds a loopback stand-in's origin to script-src only", () => {
    const csp = directives(buildContentSecurityPolicy("n", "http://127.0.0.1:4567/turnstile/v0/api.js"));
    expect(csp.get("script-src")).toEqual(["'nonce-n'", "'strict-dynamic'", "https://challenges.cloudflare.com", "http://127.0.0.1:4567"]);
    expect(csp.get("frame-src")).toEqual(["https://challenges.cloudflare.com"]);
    expect(csp.get("default-src")).toEqual(["'self'"]);
  });

  it("adds only the brand colour's nonced <style> and an off-site logo's origin when a site has them", () => {
    const csp = directives(buildContentSecurityPolicy("n", undefined, { brandStyle: true, logoOrigin: "https://cdn.example.org" }));
    expect(csp.get("style-src")).toEqual(["'self'", "'nonce-n'"]);
    expect(csp.get("img-src")).toEqual(["'self'", "https://cdn.example.org"]);
    expect(csp.get("default-src")).toEqual(["'self'"]);
  });

  it("never trusts a non-loopback or unparsable script URL", () => {
    for (const url of ["http://evil.example/api.js", "https://evil.example/api.js", "not a url", "", undefined]) {
      expect(directives(buildContentSecurityPolicy("n", url)).get("script-src")).toHaveLength(3);
    }
  });
});

describe("standinScriptOrigin", () => {
  it("accepts only plain-http loopback hosts", () => {
    expect(standinScriptOrigin("http://localhost:8804/api.js")).toBe("http://localhost:8804");
    expect(standinScriptOrigin("http://[::1]:9/api.js")).toBe("http://[::1]:9");
    expect(standinScriptOrigin("http://127.0.0.2/api.js")).toBe("http://127.0.0.2");
    expect(standinScriptOrigin("http://128.0.0.1/api.js")).toBeNull();
    expect(standinScriptOrigin("https://localhost.evil.example/api.js")).toBeNull();
  });
});

describe("applySecurityHeaders", () => {
  it("sets every hardening header", () => {
    const headers = applySecurityHeaders(new Headers(), { nonce: "xyz" });
    expect(headers.get("Content-Security-Policy")).toContain("script-src 'nonce-xyz' 'strict-dynamic'");
    expect(headers.get("Strict-Transport-Security")).toMatch(/^max-age=\d{8,}; includeSubDomains$/);
    expect(headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(headers.get("Referrer-Policy")).toBe("strict-origin-when-cross-origin");
    expect(headers.get("Permissions-Policy")).toBe(PERMISSIONS_POLICY);
    for (const feature of ["camera", "microphone", "geolocation", "payment", "usb"]) {
      expect(PERMISSIONS_POLICY).toContain(`${feature}=()`);
    }
    expect(PERMISSIONS_POLICY).not.toMatch(/=\((?!\))/);
  });
});

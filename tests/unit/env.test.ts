import { describe, expect, it } from "vitest";
import { clientIp } from "~/lib/http/client-ip.server";
import { DEFAULT_SCRIPT_URL, DEFAULT_VERIFY_URL, expectedHostnames, readTurnstileSettings } from "~/lib/settings/turnstile.server";

describe("readTurnstileSettings", () => {
  it("falls back to Cloudflare's URLs when vars are empty and treats an empty secret as missing", () => {
    const settings = readTurnstileSettings({ TURNSTILE_VERIFY_URL: "", TURNSTILE_SCRIPT_URL: " ", TURNSTILE_SECRET_KEY: "" });
    expect(settings.verifyUrl).toBe(DEFAULT_VERIFY_URL);
    expect(settings.scriptUrl).toBe(DEFAULT_SCRIPT_URL);
    expect(settings.secretKey).toBeUndefined();
  });

  it("splits the hostname allowlist on commas and spaces", () => {
    const settings = readTurnstileSettings({ TURNSTILE_ALLOWED_HOSTNAMES: "forms.example.org, www.example.org  example.org" });
    expect(settings.allowedHostnames).toEqual(["forms.example.org", "www.example.org", "example.org"]);
  });
});

describe("expectedHostnames", () => {
  it("defaults to the request's own host", () => {
    const request = new Request("https://gatepost.pages.dev/f/contact");
    expect(expectedHostnames(readTurnstileSettings({}), request)).toEqual(["gatepost.pages.dev"]);
  });

  it("uses the configured list when there is one", () => {
    const request = new Request("https://gatepost.pages.dev/f/contact");
    expect(expectedHostnames(readTurnstileSettings({ TURNSTILE_ALLOWED_HOSTNAMES: "forms.example.org" }), request)).toEqual([
      "forms.example.org",
    ]);
  });
});

describe("clientIp", () => {
  it("trusts CF-Connecting-IP and never X-Forwarded-For", () => {
    const both = new Request("https://x.test", { headers: { "CF-Connecting-IP": "203.0.113.9", "X-Forwarded-For": "6.6.6.6" } });
    expect(clientIp(both)).toBe("203.0.113.9");
    const spoofed = new Request("https://x.test", { headers: { "X-Forwarded-For": "6.6.6.6" } });
    expect(clientIp(spoofed)).toBeNull();
  });
});

import { describe, expect, it } from "vitest";
import { contactForm } from "~/forms/contact";
import { parseSettings } from "~/lib/settings/settings.server";
import { configuredDestinations, resolveDestination } from "~/lib/delivery/destinations.server";
import { isAllowedWebhookUrl } from "~/lib/settings/destination-settings.server";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

describe("webhook URL policy", () => {
  it.each(["https://hooks.example.org/in", "https://127.0.0.1:9999/x"])("allows %s everywhere", (url) => {
    expect(isAllowedWebhookUrl(url, false)).toBe(true);
    expect(isAllowedWebhookUrl(url, true)).toBe(true);
  });

  it.each(["http://127.0.0.1:9999/hook", "http://localhost:9999/hook", "http://[::1]:9999/hook"])(
    "allows loopback %s only with the local-dev switch",
    (url) => {
      expect(isAllowedWebhookUrl(url, true)).toBe(true);
      expect(isAllowedWebhookUrl(url, false)).toBe(false);
    },
  );

  it.each([
    "http://hooks.example.org/in",
    "http://10.0.0.1/in",
    "http://127.0.0.1.example.org/in",
    "ftp://127.0.0.1/in",
    "https://user:pass@hooks.example.org/in",
    "not a url",
  ])("refuses %s even in local dev", (url) => {
    expect(isAllowedWebhookUrl(url, true)).toBe(false);
    expect(isAllowedWebhookUrl(url, false)).toBe(false);
  });
});

describe("destinations from config", () => {
  it("has none when the URL variable is empty or missing: the submission is simply stored", () => {
    expect(configuredDestinations(parseSettings({}), contactForm)).toEqual([]);
    expect(configuredDestinations(parseSettings({ CONTACT_WEBHOOK_URL: "  " }), contactForm)).toEqual([]);
    expect(configuredDestinations(parseSettings({ CONTACT_WEBHOOK_URL: "https://x.example" }), contactForm)).toHaveLength(1);
  });

  it("a deployed config (no switch) refuses plain http, loopback or not", () => {
    for (const url of ["http://127.0.0.1:8080/hook", "http://hooks.example.org/hook"]) {
      const check = resolveDestination(parseSettings({ CONTACT_WEBHOOK_URL: url, CONTACT_WEBHOOK_SECRET: SECRET }), contactForm, "webhook");
      expect(check.ok).toBe(false);
      expect(!check.ok && check.reason).toContain("must be an https URL");
    }
  });

  it('the switch must be exactly "true" and still refuses non-loopback http', () => {
    const env = { CONTACT_WEBHOOK_URL: "http://127.0.0.1:8080/hook", CONTACT_WEBHOOK_SECRET: SECRET };
    expect(resolveDestination(parseSettings({ ...env, ALLOW_LOOPBACK_WEBHOOKS: "1" }), contactForm, "webhook").ok).toBe(false);
    expect(resolveDestination(parseSettings({ ...env, ALLOW_LOOPBACK_WEBHOOKS: "true" }), contactForm, "webhook").ok).toBe(true);
    const remote = { ...env, CONTACT_WEBHOOK_URL: "http://hooks.example.org/hook", ALLOW_LOOPBACK_WEBHOOKS: "true" };
    expect(resolveDestination(parseSettings(remote), contactForm, "webhook").ok).toBe(false);
  });

  it("needs a whsec_ secret and never echoes it", () => {
    const check = resolveDestination(
      parseSettings({ CONTACT_WEBHOOK_URL: "https://x.example", CONTACT_WEBHOOK_SECRET: "hunter2-hunter2-hunter2" }),
      contactForm,
      "webhook",
    );
    expect(check.ok).toBe(false);
    expect(!check.ok && check.reason).toContain("CONTACT_WEBHOOK_SECRET");
    expect(!check.ok && check.reason).not.toContain("hunter2");
    const ok = resolveDestination(
      parseSettings({ CONTACT_WEBHOOK_URL: "https://x.example", CONTACT_WEBHOOK_SECRET: SECRET }),
      contactForm,
      "webhook",
    );
    expect(ok.ok && ok.destination.kind === "webhook" && ok.destination.url).toBe("https://x.example");
  });
});

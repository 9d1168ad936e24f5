import { describe, expect, it } from "vitest";
import { contactForm } from "~/forms/contact";
import { parseSettings } from "~/lib/settings/settings.server";
import { configuredDestinations, resolveDestination } from "~/lib/destinations/configured.server";
import { webhookUrlProblem } from "~/lib/destinations/checks";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

describe("webhook URL policy", () => {
  it.each(["https://hooks.example.org/in", "https://hooks.slack.com/services/T0/B0/x", "https://127.0.0.1.example.org/in"])(
    "allows %s everywhere",
    (url) => {
      expect(webhookUrlProblem(url, false)).toBeNull();
      expect(webhookUrlProblem(url, true)).toBeNull();
    },
  );

  // Every spelling of this computer: WHATWG URL parsing writes each IPv4 form as 127.0.0.1 first.
  const LOOPBACK = [
    "http://127.0.0.1:9999/hook",
    "https://127.0.0.1:9999/x",
    "http://localhost:9999/hook",
    "http://localhost.:9999/hook",
    "http://LOCALHOST/hook",
    "http://sink.localhost/hook",
    "http://[::1]:9999/hook",
    "http://2130706433/hook",
    "http://0177.0.0.1/hook",
    "http://0x7f.1/hook",
    "http://127.1/hook",
    "http://0x7f000001/hook",
    "http://127.0.0.1./hook",
    "http://[::ffff:127.0.0.1]/hook",
    "http://[0:0:0:0:0:ffff:7f00:1]/hook",
  ];
  it.each(LOOPBACK)("refuses loopback %s, unless the local-dev switch is on", (url) => {
    expect(webhookUrlProblem(url, false)).toMatch(
      /^must not reach inside: .* \(ALLOW_LOOPBACK_WEBHOOKS allows it in local development only\)$/,
    );
    expect(webhookUrlProblem(url, true)).toBeNull();
  });

  // Inside, but not this computer: refused even in local dev.
  const INSIDE = [
    ["https://10.0.0.1/in", "private"],
    ["https://172.16.5.4/in", "private"],
    ["https://192.168.1.1/in", "private"],
    ["https://0xa9.0xfe.0xa9.0xfe/latest/meta-data", "linkLocal"],
    ["https://169.254.169.254/latest/meta-data", "linkLocal"],
    ["https://0.0.0.0/in", "unspecified"],
    ["https://0/in", "unspecified"],
    ["https://[::]/in", "unspecified"],
    ["https://[fe80::1]/in", "linkLocal"],
    ["https://[fd00::1]/in", "uniqueLocal"],
    ["https://[fc12:3456::1]/in", "uniqueLocal"],
    ["https://[::ffff:10.0.0.1]/in", "private"],
    ["https://[::ffff:a9fe:a9fe]/in", "linkLocal"],
    ["https://167772161/in", "private"],
    ["https://8.8.8.8/in", "unicast"],
    ["https://[2001:4860:4860::8888]/in", "unicast"],
  ] as const;
  it.each(INSIDE)("refuses %s (%s) even in local dev, naming the range", (url, range) => {
    for (const allow of [false, true]) expect(webhookUrlProblem(url, allow)).toContain(`(${range}), not a host name`);
  });

  it.each([
    "https://router.local/in",
    "https://metadata.google.internal/x",
    "https://nas.home.arpa/x",
    "https://intranet/in",
    "https://box.localdomain/x",
  ])("refuses the local network name %s even in local dev", (url) => {
    expect(webhookUrlProblem(url, true)).toMatch(/^must not reach inside: /);
    expect(webhookUrlProblem(url, false)).toMatch(/^must not reach inside: /);
  });

  it.each([
    ["http://hooks.example.org/in", "must be an https URL"],
    ["ftp://hooks.example.org/in", "must be an https URL"],
    ["https://user:pass@hooks.example.org/in", "must not carry a user name or password"],
    ["not a url", "is not a URL"],
  ])("refuses %s even in local dev", (url, problem) => {
    expect(webhookUrlProblem(url, true)).toBe(problem);
    expect(webhookUrlProblem(url, false)).toBe(problem);
  });
});

describe("destinations from config", () => {
  it("has none when the URL variable is empty or missing: the submission is simply stored", () => {
    expect(configuredDestinations(parseSettings({}), contactForm)).toEqual([]);
    expect(configuredDestinations(parseSettings({ CONTACT_WEBHOOK_URL: "  " }), contactForm)).toEqual([]);
    expect(configuredDestinations(parseSettings({ CONTACT_WEBHOOK_URL: "https://x.example" }), contactForm)).toHaveLength(1);
  });

  it("a deployed config (no switch) refuses plain http, and any URL inside, when delivered and on /healthz", () => {
    for (const [url, reason] of [
      ["http://127.0.0.1:8080/hook", "must not reach inside: 127.0.0.1 is an IP address (loopback)"],
      ["https://0x7f.1/hook", "must not reach inside: 127.0.0.1 is an IP address (loopback)"],
      ["https://[::ffff:169.254.169.254]/hook", "must not reach inside: 169.254.169.254 is an IP address (linkLocal)"],
      ["http://hooks.example.org/hook", "must be an https URL"],
    ]) {
      for (const suffix of ["WEBHOOK_URL", "SLACK_WEBHOOK_URL", "DISCORD_WEBHOOK_URL"] as const) {
        const settings = parseSettings({ [`CONTACT_${suffix}`]: url, CONTACT_WEBHOOK_SECRET: SECRET });
        const name = { WEBHOOK_URL: "webhook", SLACK_WEBHOOK_URL: "slack", DISCORD_WEBHOOK_URL: "discord" }[suffix];
        const check = resolveDestination(settings, { ...contactForm, destinations: [{ kind: name as "webhook" }] }, name);
        expect(check.ok).toBe(false);
        expect(!check.ok && check.reason).toContain(`CONTACT_${suffix} ${reason}`);
        expect(settings.problems.map((p) => p.message).join("\n")).toContain(`CONTACT_${suffix} ${reason}`);
      }
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
    expect(ok.ok && ok.destination).toMatchObject({ kind: "webhook", url: "https://x.example" });
  });
});

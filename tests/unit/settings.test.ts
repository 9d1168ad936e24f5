import { describe, expect, it } from "vitest";
import { formSettingName, parseSettings, settingsOf } from "~/lib/settings/settings.server";

describe("parseSettings", () => {
  it("reads a form's settings by the convention derived from its id", () => {
    expect(formSettingName("contact", "WEBHOOK_URL")).toBe("CONTACT_WEBHOOK_URL");
    expect(formSettingName("job-application", "EMAIL_TO")).toBe("JOB_APPLICATION_EMAIL_TO");
    const settings = parseSettings({ JOB_APPLICATION_WEBHOOK_URL: " https://hooks.example/x ", CONTACT_EMAIL_TO: "a@example.org" });
    expect(settings.form("job-application").WEBHOOK_URL).toBe("https://hooks.example/x");
    expect(settings.form("job-application").EMAIL_TO).toBe("");
    expect(settings.form("contact").EMAIL_TO).toBe("a@example.org");
  });

  it("keeps the safe default for a bad value and reports one problem naming the variable", () => {
    const settings = parseSettings({ FORM_RATE_LIMIT_PER_MINUTE: "lots", EMAIL_FROM: "not an address", ALLOW_LOOPBACK_WEBHOOKS: "yes" });
    expect(settings.forms.defaultRateLimits.perMinute).toBe(5);
    expect(settings.emailFrom).toBeNull();
    expect(settings.allowLoopbackHttp).toBe(false);
    expect(settings.problems.map((p) => p.variable).sort()).toEqual([
      "ALLOW_LOOPBACK_WEBHOOKS",
      "EMAIL_FROM",
      "FORM_RATE_LIMIT_PER_MINUTE",
    ]);
    for (const problem of settings.problems) expect(problem.message).toContain(problem.variable);
  });

  it("reports nothing for an empty environment, which is valid (everything falls back or stays off)", () => {
    const settings = parseSettings({});
    expect(settings.problems).toEqual([]);
    expect(settings.publicUrl).toBeNull();
    expect(parseSettings({ PUBLIC_URL: "https://forms.example.org/" }).publicUrl).toBe("https://forms.example.org");
    expect(parseSettings({ EMAIL_FROM: "forms@example.org" }).emailFrom).toBe("forms@example.org");
  });
});

describe("settingsOf", () => {
  it("parses an env object once and gives every later call the same settings", () => {
    const env = { FORM_RATE_LIMIT_PER_MINUTE: "7", CONTACT_EMAIL_TO: "a@example.org" };
    const first = settingsOf(env);
    expect(settingsOf(env)).toBe(first);
    expect(first.forms.defaultRateLimits.perMinute).toBe(7);
    expect(first.form("contact").EMAIL_TO).toBe("a@example.org");
  });

  it("parses another env object on its own, never answering with the settings of the one before", () => {
    const a = settingsOf({ FORM_RATE_LIMIT_PER_MINUTE: "7", EMAIL_FROM: "a@example.org", CONTACT_EMAIL_TO: "a@example.org" });
    const b = settingsOf({ FORM_RATE_LIMIT_PER_MINUTE: "9", EMAIL_FROM: "b@example.org", CONTACT_EMAIL_TO: "b@example.org" });
    expect(b).not.toBe(a);
    expect(b.forms.defaultRateLimits.perMinute).toBe(9);
    expect(b.emailFrom).toBe("b@example.org");
    expect(b.form("contact").EMAIL_TO).toBe("b@example.org");
    expect(a.emailFrom).toBe("a@example.org");
    // The same values in a new object are parsed again, as a new deployment's env would be.
    expect(settingsOf({ FORM_RATE_LIMIT_PER_MINUTE: "7" })).not.toBe(a);
  });

  it("gives the same settings parseSettings does, frozen so no caller can change them for the next request", () => {
    const env = { SESSION_SECRET: "x".repeat(40), TURNSTILE_ALLOWED_HOSTNAMES: "a.example b.example", EMAIL_FROM: "junk" };
    const memo = settingsOf(env);
    const fresh = parseSettings(env);
    expect(JSON.parse(JSON.stringify(memo))).toEqual(JSON.parse(JSON.stringify(fresh)));
    expect(Object.isFrozen(memo)).toBe(true);
    expect(() => (memo.turnstile.allowedHostnames as string[]).push("evil.example")).toThrow(TypeError);
    expect(() => (memo.problems as unknown[]).push({})).toThrow(TypeError);
    expect(settingsOf(env).turnstile.allowedHostnames).toEqual(["a.example", "b.example"]);
  });
});

import { describe, expect, it } from "vitest";
import { formSettingName, parseSettings } from "~/lib/settings/settings.server";

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

import { describe, expect, it } from "vitest";
import { open, seal, sealedWith, sealingKey } from "~/lib/crypto/secret-box.server";
import { openSettingRows, settingContext, signingSecrets } from "~/lib/forms/console-settings.server";

// Console settings at rest (ADR 042): AES-256-GCM under a key derived from SETTINGS_ENCRYPTION_KEY.

const KEY = "unit-settings-encryption-key-0123456789abcdef";
const NEXT = "unit-settings-encryption-key-rotated-98765432";

describe("sealed settings", () => {
  it("round-trips, names the key, and never shows the plaintext", async () => {
    const key = await sealingKey(KEY);
    const sealed = await seal(key, "https://hooks.slack.com/services/T0/B0/secret", settingContext("contact", "SLACK_WEBHOOK_URL"));
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain("hooks.slack.com");
    expect(sealedWith(sealed)).toBe(key.id);
    expect(await open([key], sealed, settingContext("contact", "SLACK_WEBHOOK_URL"))).toBe("https://hooks.slack.com/services/T0/B0/secret");
    // A fresh IV each time: the same value never seals the same way twice.
    expect(await seal(key, "x", "c")).not.toBe(await seal(key, "x", "c"));
  });

  it("opens nothing with another key, in another row, or after a change", async () => {
    const [key, other] = [await sealingKey(KEY), await sealingKey(NEXT)];
    const sealed = await seal(key, "owner@example.org", settingContext("contact", "EMAIL_TO"));
    expect(await open([other], sealed, settingContext("contact", "EMAIL_TO"))).toBeNull();
    expect(await open([key], sealed, settingContext("newsletter", "EMAIL_TO"))).toBeNull();
    const parts = sealed.split(".");
    // The second-to-last character of unpadded base64url carries 6 whole bits of ciphertext or tag, so
    // replacing it with any other character changes a byte; the replacement always differs from it.
    const at = parts[3].length - 2;
    const changed = parts[3][at] === "A" ? "B" : "A";
    const flipped = [...parts.slice(0, 3), `${parts[3].slice(0, at)}${changed}${parts[3].slice(at + 1)}`].join(".");
    expect(flipped).not.toBe(sealed);
    expect(await open([key], flipped, settingContext("contact", "EMAIL_TO"))).toBeNull();
    expect(await open([key], "not sealed", "c")).toBeNull();
    // Both keys during a rotation: whichever sealed it opens it.
    expect(await open([other, key], sealed, settingContext("contact", "EMAIL_TO"))).toBe("owner@example.org");
  });

  it("opens a form's rows into the environment's format, a rotated-out webhook secret only until its end", async () => {
    const key = await sealingKey(KEY);
    const secrets = JSON.stringify({
      secrets: [
        { secret: "whsec_new", until: null },
        { secret: "whsec_old", until: 2_000 },
      ],
    });
    const rows = [
      {
        form_id: "contact",
        name: "WEBHOOK_SECRET",
        value: await seal(key, secrets, settingContext("contact", "WEBHOOK_SECRET")),
        updated_at: 1,
      },
      {
        form_id: "contact",
        name: "EMAIL_TO",
        value: await seal(key, "a@example.org", settingContext("contact", "EMAIL_TO")),
        updated_at: 1,
      },
      {
        form_id: "contact",
        name: "DISCORD_WEBHOOK_URL",
        value: await seal(await sealingKey(NEXT), "https://x", settingContext("contact", "DISCORD_WEBHOOK_URL")),
        updated_at: 1,
      },
    ];
    const during = await openSettingRows(rows, [key], 1_000);
    expect(during.settings.get("contact")).toEqual({ WEBHOOK_SECRET: "whsec_new whsec_old", EMAIL_TO: "a@example.org" });
    expect(during.unreadable).toEqual([{ formId: "contact", name: "DISCORD_WEBHOOK_URL" }]);
    expect((await openSettingRows(rows, [key], 2_000)).settings.get("contact")?.WEBHOOK_SECRET).toBe("whsec_new");
    expect(signingSecrets(JSON.parse(secrets), 1_999)).toBe("whsec_new whsec_old");
  });
});

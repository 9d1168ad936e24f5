import { describe, expect, it } from "vitest";
import { FORMS } from "~/lib/forms/registry";
import { FORM_SETTING_SUFFIXES, findSettingNameClash, formSettingName } from "~/lib/settings/settings.server";

// A form's settings are named after its id (contact → CONTACT_WEBHOOK_URL). An id whose names could be
// another form's is refused at create (form_id_settings_clash), so no form ever reads another's settings.

const TOKENS = ["contact", "slack", "discord", "webhook", "email", "to", "secret", "url", "confirmation", "x"];

/** Every id of one to three tokens joined by dashes: 1,110 ids, among them every suffix spelled out. */
function ids(): string[] {
  const out: string[] = [];
  const grow = (prefix: string[]) => {
    if (prefix.length > 0) out.push(prefix.join("-"));
    if (prefix.length < 3) for (const token of TOKENS) grow([...prefix, token]);
  };
  grow([]);
  return out;
}

describe("form setting names", () => {
  it("refuses, for every pair of suffixes where one ends in the other, the longer id and names both settings", () => {
    let pairs = 0;
    for (const longer of FORM_SETTING_SUFFIXES) {
      for (const shorter of FORM_SETTING_SUFFIXES) {
        if (longer === shorter || !longer.endsWith(`_${shorter}`)) continue;
        pairs++;
        // contact + SLACK_WEBHOOK_URL = contact-slack + WEBHOOK_URL.
        const extra = longer
          .slice(0, -shorter.length - 1)
          .toLowerCase()
          .replaceAll("_", "-");
        const id = `contact-${extra}`;
        expect(formSettingName(id, shorter)).toBe(formSettingName("contact", longer));
        expect(findSettingNameClash(id)).toEqual({
          name: formSettingName("contact", longer),
          suffix: shorter,
          otherFormId: "contact",
          otherSuffix: longer,
        });
        // The shorter id keeps its settings: it is the longer one that is refused.
        expect(findSettingNameClash("contact")).toBeNull();
      }
    }
    // SLACK_, DISCORD_, GOOGLE_CHAT_ and TEAMS_WEBHOOK_URL each end in WEBHOOK_URL.
    expect(pairs).toBe(4);
  });

  it("leaves no two accepted ids sharing a setting name, over every suffix", () => {
    const owner = new Map<string, string>();
    let accepted = 0;
    for (const id of ids()) {
      if (findSettingNameClash(id)) continue;
      accepted++;
      for (const suffix of FORM_SETTING_SUFFIXES) {
        const name = formSettingName(id, suffix);
        expect(owner.get(name), `${id} ${suffix}`).toBeUndefined();
        owner.set(name, `${id} ${suffix}`);
      }
    }
    // Refused: exactly the ids of two or three tokens ending in -slack or -discord (20 + 200 of 1,110).
    expect(accepted).toBe(1_110 - 220);
    expect(findSettingNameClash("contact-slack")?.otherFormId).toBe("contact");
    expect(findSettingNameClash("my-discord")?.otherFormId).toBe("my");
    for (const id of ["contact", "slack", "discord", "slack-contact", "contact-webhook", "contact-email"]) {
      expect(findSettingNameClash(id), id).toBeNull();
    }
  });

  it("holds for the forms in app/forms/", () => {
    for (const form of FORMS) expect(findSettingNameClash(form.id), form.id).toBeNull();
  });
});

import { describe, expect, it } from "vitest";
import { foldMailbox } from "~/lib/sending/mailbox.server";
import { confirmationKey } from "~/lib/destinations/confirmation/limits.server";
import { networkSubject } from "~/lib/http/client-ip.server";

describe("foldMailbox", () => {
  it.each([
    ["Ada.Lovelace@Gmail.com", "adalovelace@gmail.com"],
    ["ada.lovelace+news@gmail.com", "adalovelace@gmail.com"],
    ["a.d.a.l.o.v.e.l.a.c.e@googlemail.com", "adalovelace@gmail.com"],
    ["ADA+x+y@EXAMPLE.ORG", "ada@example.org"],
    ["grace.hopper@navy.example", "gracehopper@navy.example"],
    ["  grace@example.org ", "grace@example.org"],
    ["Élodie.Straße@Example.org", "élodiestrasse@example.org"],
    ["ａｄａ@example.org", "ada@example.org"],
    ["mary-jane@example.org", "mary-jane@example.org"],
    ["+tag@example.org", "+tag@example.org"],
    ["grace@example.org.", "grace@example.org"],
  ])("folds %j to %j", (address, mailbox) => {
    expect(foldMailbox(address)).toBe(mailbox);
  });

  it.each(["", "no-at-sign", "@example.org", "grace@", "...@example.org"])("has no mailbox for %j", (address) => {
    expect(foldMailbox(address)).toBeNull();
  });

  it("keys the confirmation limit by the folded mailbox, per form", async () => {
    const key = await confirmationKey("contact", "Ada.Lovelace+x@googlemail.com");
    expect(key).toBe(await confirmationKey("contact", "adalovelace@gmail.com"));
    expect(key).not.toBe(await confirmationKey("newsletter", "adalovelace@gmail.com"));
    expect(key).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("networkSubject", () => {
  it("groups IPv6 by /48 and keeps an IPv4 address whole", () => {
    expect(networkSubject("2001:db8:7:1::1")).toBe("2001:db8:7::/48");
    expect(networkSubject("2001:0DB8:0007:ffff:1:2:3:4")).toBe("2001:db8:7::/48");
    expect(networkSubject("2001:db8:8::1")).toBe("2001:db8:8::/48");
    expect(networkSubject("198.51.100.9")).toBe("198.51.100.9");
    expect(networkSubject(null)).toBe("unknown");
  });
});

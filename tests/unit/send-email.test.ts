import { describe, expect, it } from "vitest";
import { isLimitRefusal, isRecipientRefusal, sendEmailAttempt } from "~/lib/sending/send-email.server";

// send_email's refusals: one of the recipient itself is final (the confirmation is then not sent),
// anything else is a failure of the moment, asked again on the outbox's schedule.

describe("a refusal by the e-mail service", () => {
  it("is the recipient's when the service says so by code or by Email Routing's wording", () => {
    expect(isRecipientRefusal(Object.assign(new Error("nope"), { code: "E_RECIPIENT_NOT_ALLOWED" }))).toBe(true);
    expect(isRecipientRefusal(Object.assign(new Error("nope"), { code: "E_RECIPIENT_SUPPRESSED" }))).toBe(true);
    expect(isRecipientRefusal(new Error("destination address is not a verified address"))).toBe(true);
    expect(isRecipientRefusal(Object.assign(new Error("slow down"), { code: "E_RATE_LIMIT_EXCEEDED" }))).toBe(false);
    expect(isRecipientRefusal(new Error("network connection lost"))).toBe(false);
    expect(isRecipientRefusal("E_DAILY_LIMIT_EXCEEDED")).toBe(false);
  });

  it("marks the attempt's record only for a refused recipient", async () => {
    const refuse = (error: unknown) => ({ send: () => Promise.reject(error) });
    const refused = await sendEmailAttempt(
      refuse({ code: "E_RECIPIENT_NOT_ALLOWED", message: "x" }),
      "a@example.org",
      ["b@example.org"],
      "raw",
    );
    expect(refused).toMatchObject({ delivered: false, error: "rejected", recipientRefused: true });
    const busy = await sendEmailAttempt(refuse(new Error("try later")), "a@example.org", ["b@example.org"], "raw");
    expect(busy).toMatchObject({ delivered: false, error: "rejected" });
    expect(busy).not.toHaveProperty("recipientRefused");
  });

  it("is its sending limit's, retried as a 429 is, by code or wording", async () => {
    expect(isLimitRefusal(Object.assign(new Error("x"), { code: "E_DAILY_LIMIT_EXCEEDED" }))).toBe(true);
    expect(isLimitRefusal(Object.assign(new Error("x"), { code: "E_RATE_LIMIT_EXCEEDED" }))).toBe(true);
    expect(isLimitRefusal(new Error("daily sending limit reached"))).toBe(true);
    expect(isLimitRefusal(Object.assign(new Error("x"), { code: "E_RECIPIENT_NOT_ALLOWED" }))).toBe(false);
    const limited = await sendEmailAttempt(
      { send: () => Promise.reject(Object.assign(new Error("x"), { code: "E_DAILY_LIMIT_EXCEEDED" })) },
      "a@example.org",
      ["b@example.org"],
      "raw",
    );
    expect(limited).toMatchObject({ delivered: false, error: "rate_limited" });
    expect(limited.detail).toContain("E_DAILY_LIMIT_EXCEEDED");
    expect(limited).not.toHaveProperty("recipientRefused");
  });
});

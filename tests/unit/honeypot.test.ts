import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { judgeApiPost, judgePagePost } from "~/lib/submit/honeypot.server";
import { MAX_STAMP_AGE_MS, signFormStamp } from "~/lib/submit/form-stamp.server";

const SECRET = "unit-test-signing-secret-0123456789abcdef";
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const SID = "5b0c7a4e-5f43-4a39-9f59-0b6d4a8e2c11";

// Every post carries the rendered form's submission id, which its stamp is bound to.
async function judge(fields: Record<string, unknown>, nowMs = T0 + 10_000) {
  return judgePagePost({ fields: { _gp_sid: SID, ...fields }, secret: SECRET, formId: "contact", minFillMs: 3_000, nowMs });
}

describe("signed form stamps", () => {
  it("passes a stamp this server signed for this form, old enough", async () => {
    const stamp = await signFormStamp(SECRET, "contact", SID, T0);
    expect(stamp).toMatch(/^v2\.\d{13}\.[A-Za-z0-9_-]{43}$/);
    expect(await judge({ _gp_ts: stamp, _gp_hp: "" })).toEqual({ bot: false });
  });

  it("flags a post faster than the minimum fill time", async () => {
    const stamp = await signFormStamp(SECRET, "contact", SID, T0);
    expect(await judge({ _gp_ts: stamp }, T0 + 2_999)).toEqual({ bot: true, reason: "timestamp_too_fast" });
  });

  it("flags a missing, malformed, re-dated, other-form or other-secret stamp", async () => {
    const stamp = await signFormStamp(SECRET, "contact", SID, T0);
    const [, , mac] = stamp.split(".");
    expect(await judge({})).toEqual({ bot: true, reason: "timestamp_missing" });
    expect(await judge({ _gp_ts: ["a"] })).toEqual({ bot: true, reason: "timestamp_forged" });
    expect(await judge({ _gp_ts: `v2.${T0 - 60_000}.${mac}` })).toEqual({ bot: true, reason: "timestamp_forged" });
    expect(await judge({ _gp_ts: await signFormStamp(SECRET, "newsletter", SID, T0) })).toEqual({ bot: true, reason: "timestamp_forged" });
    expect(await judge({ _gp_ts: await signFormStamp("another-secret-0123456789abcdefghij", "contact", SID, T0) })).toEqual({
      bot: true,
      reason: "timestamp_forged",
    });
    expect(await judge({ _gp_ts: await signFormStamp(SECRET, "contact", SID, T0 + 3_600_000) })).toEqual({
      bot: true,
      reason: "timestamp_forged",
    });
  });

  it("binds a stamp to its render's submission id: another id, or none, is a forgery", async () => {
    const stamp = await signFormStamp(SECRET, "contact", SID, T0);
    expect(await judge({ _gp_ts: stamp, _gp_sid: crypto.randomUUID() })).toEqual({ bot: true, reason: "timestamp_forged" });
    expect(await judge({ _gp_ts: stamp, _gp_sid: undefined })).toEqual({ bot: true, reason: "timestamp_forged" });
  });

  it("expires a stamp after 24 hours, and takes a stamp of the version before as expired", async () => {
    const stamp = await signFormStamp(SECRET, "contact", SID, T0);
    expect(await judge({ _gp_ts: stamp }, T0 + MAX_STAMP_AGE_MS)).toEqual({ bot: false });
    expect(await judge({ _gp_ts: stamp }, T0 + MAX_STAMP_AGE_MS + 1)).toEqual({ expired: true, signed: true });
    expect(MAX_STAMP_AGE_MS).toBe(24 * 3_600_000);
    const v1 = `v1.${T0}.${createHmac("sha256", SECRET).update(`v1.contact.${T0}`).digest("base64url")}`;
    expect(await judge({ _gp_ts: v1 })).toEqual({ expired: true, signed: true });
  });

  // Only a stamp this server signed proves a person once filled the form: anything else that merely
  // looks like an old stamp is expired without that proof, so its fresh stamp starts the fill time anew.
  it("says whether an expired stamp was validly signed", async () => {
    const stamp = await signFormStamp(SECRET, "contact", SID, T0);
    const [, , mac] = stamp.split(".");
    const otherSecret = createHmac("sha256", "another-secret-0123456789abcdefghij").update(`v1.contact.${T0}`).digest("base64url");
    for (const junk of [`v1.${T0}.${mac}`, `v1.${T0}.${"A".repeat(43)}`, `v1.0000000000000.${"A".repeat(43)}`, `v1.${T0}.${otherSecret}`]) {
      expect(await judge({ _gp_ts: junk }), junk).toEqual({ expired: true, signed: false });
    }
    const otherForm = createHmac("sha256", SECRET).update(`v1.newsletter.${T0}`).digest("base64url");
    expect(await judge({ _gp_ts: `v1.${T0}.${otherForm}` })).toEqual({ expired: true, signed: false });
  });

  it("flags a filled trap before looking at the stamp", async () => {
    const stamp = await signFormStamp(SECRET, "contact", SID, T0);
    expect(await judge({ _gp_ts: stamp, _gp_hp: "x" })).toEqual({ bot: true, reason: "honeypot_filled" });
    expect(await judge({ _gp_ts: stamp, _gp_hp: ["x"] })).toEqual({ bot: true, reason: "honeypot_filled" });
  });
});

describe("judgeApiPost", () => {
  it("flags only a filled _gotcha", () => {
    expect(judgeApiPost({})).toEqual({ bot: false });
    expect(judgeApiPost({ _gotcha: "  " })).toEqual({ bot: false });
    expect(judgeApiPost({ _gotcha: "spam" })).toEqual({ bot: true, reason: "honeypot_filled" });
  });
});

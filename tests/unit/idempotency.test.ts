import { describe, expect, it } from "vitest";
import { fingerprintRequest, readIdempotencyKey } from "~/lib/submit/idempotency.server";

// ADR 013: a key is bound to the form and the values it first stored, nothing else.
describe("fingerprintRequest", () => {
  const values = { name: "Ada", email: "ada@example.org", message: "Hello there, engine." };

  it("is stable for the same form and values, and differs for another form or another value", async () => {
    const a = await fingerprintRequest("contact", values);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(await fingerprintRequest("contact", { ...values })).toBe(a);
    expect(await fingerprintRequest("newsletter", values)).not.toBe(a);
    expect(await fingerprintRequest("contact", { ...values, message: "Hello there, engine!" })).not.toBe(a);
    expect(await fingerprintRequest("contact", { ...values, name: null })).not.toBe(
      await fingerprintRequest("contact", { ...values, name: "" }),
    );
  });
});

describe("readIdempotencyKey", () => {
  const request = (headers: Record<string, string> = {}) => new Request("http://x/", { method: "POST", headers });

  it("takes the header, else a UUID _gp_sid, else none", () => {
    const sid = crypto.randomUUID();
    expect(readIdempotencyKey(request({ "Idempotency-Key": " k-1 " }), { _gp_sid: sid })).toEqual({ ok: true, key: "k-1" });
    expect(readIdempotencyKey(request(), { _gp_sid: sid })).toEqual({ ok: true, key: sid });
    expect(readIdempotencyKey(request(), {})).toEqual({ ok: true, key: null });
    expect(readIdempotencyKey(request(), { _gp_sid: "not-a-uuid" })).toEqual({ ok: false, code: "idempotency_key_invalid" });
  });
});

import { describe, expect, it } from "vitest";
import { verifyTurnstile, type VerifyTurnstileInput } from "~/lib/turnstile/siteverify.server";

// The action check: exact for real secrets; Cloudflare's dummy secrets answer with no action at all,
// so only then may it be absent. The verify endpoint passes null to accept any action.
const DUMMY_ANSWER = {
  success: true,
  "error-codes": [],
  challenge_ts: "2026-01-06T17:44:28.544Z",
  hostname: "example.com",
  metadata: { result_with_testing_key: true },
};
const REAL_SECRET = "0x4AAAAAAAreal-secret-for-unit-tests";

function input(answer: object, overrides: Partial<VerifyTurnstileInput> = {}): VerifyTurnstileInput {
  return {
    token: "XXXX.DUMMY.TOKEN.XXXX",
    secret: "1x0000000000000000000000000000000AA",
    verifyUrl: "https://challenges.example/siteverify",
    remoteIp: null,
    expectedAction: "contact",
    expectedHostnames: ["example.com"],
    fetch: async () => Response.json(answer),
    ...overrides,
  };
}

describe("the action check", () => {
  it("lets a dummy secret's answer without an action through, as Cloudflare sends it", async () => {
    expect(await verifyTurnstile(input(DUMMY_ANSWER))).toMatchObject({ ok: true, action: "" });
  });

  it("still refuses a wrong action under a dummy secret", async () => {
    const verdict = await verifyTurnstile(input({ ...DUMMY_ANSWER, action: "newsletter" }));
    expect(verdict).toMatchObject({ ok: false, code: "turnstile_action_mismatch" });
  });

  it("refuses a missing action with a real secret", async () => {
    const verdict = await verifyTurnstile(input(DUMMY_ANSWER, { secret: REAL_SECRET }));
    expect(verdict).toMatchObject({ ok: false, code: "turnstile_action_mismatch" });
  });

  it("accepts any action when none is expected (the verify endpoint without `action`)", async () => {
    const verdict = await verifyTurnstile(input({ ...DUMMY_ANSWER, action: "signup" }, { secret: REAL_SECRET, expectedAction: null }));
    expect(verdict).toMatchObject({ ok: true, action: "signup" });
  });
});

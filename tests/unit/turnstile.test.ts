import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { MAX_TOKEN_LENGTH, verifyTurnstile, type VerifyTurnstileInput } from "~/lib/turnstile/siteverify.server";
import { standinToken } from "../../dev/standin-token";
// @ts-expect-error - plain ESM helper shared with npm run start:offline
import { startTurnstileStandin } from "../../dev/turnstile-standin.mjs";

type Standin = Awaited<ReturnType<typeof startTurnstileStandin>>;
let standin: Standin;

const PASS = "1x0000000000000000000000000000000AA";
const FAIL = "2x0000000000000000000000000000000AA";
const SPENT = "3x0000000000000000000000000000000AA";
const noSleep = async () => {};

function input(overrides: Partial<VerifyTurnstileInput> = {}): VerifyTurnstileInput {
  return {
    token: standinToken({ action: "contact", hostname: "forms.example.net" }),
    secret: PASS,
    verifyUrl: standin.verifyUrl,
    remoteIp: "198.51.100.4",
    expectedAction: "contact",
    expectedHostnames: ["forms.example.net"],
    sleep: noSleep,
    ...overrides,
  };
}

beforeAll(async () => {
  standin = await startTurnstileStandin();
});
afterAll(async () => {
  await standin.close();
});
beforeEach(() => standin.reset());

describe("verifyTurnstile against the stand-in provider", () => {
  it("accepts a fresh token and returns the verdict summary", async () => {
    const verdict = await verifyTurnstile(input());
    expect(verdict).toMatchObject({ ok: true, hostname: "forms.example.net", action: "contact" });
    const [call] = standin.calls();
    expect(call.contentType).toBe("application/x-www-form-urlencoded");
    expect(call.secret).toBe(PASS);
    expect(call.remoteip).toBe("198.51.100.4");
    expect(call.idempotency_key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("omits remoteip when there is no CF-Connecting-IP", async () => {
    await verifyTurnstile(input({ remoteIp: null }));
    expect(standin.calls()[0].remoteip).toBeUndefined();
  });

  it.each([
    [FAIL, "turnstile_invalid_token"],
    [SPENT, "turnstile_expired_or_duplicate"],
    ["0x4AAAAAAAnot-a-real-secret", "turnstile_secret_invalid"],
  ])("maps the provider's answer for secret %s to %s", async (secret, code) => {
    const verdict = await verifyTurnstile(input({ secret }));
    expect(verdict).toMatchObject({ ok: false, code, retryable: false });
    expect(standin.calls()).toHaveLength(1);
  });

  it("refuses a replayed token", async () => {
    const token = standinToken({ action: "contact", hostname: "forms.example.net" });
    expect((await verifyTurnstile(input({ token }))).ok).toBe(true);
    expect(await verifyTurnstile(input({ token }))).toMatchObject({ ok: false, code: "turnstile_expired_or_duplicate" });
  });

  it("refuses a hostname outside the allowed list", async () => {
    const verdict = await verifyTurnstile(input({ token: standinToken({ action: "contact", hostname: "evil.example" }) }));
    expect(verdict).toMatchObject({ ok: false, code: "turnstile_hostname_mismatch" });
  });

  it("allows example.com only while a test secret is in use", async () => {
    const token = () => standinToken({ action: "contact", hostname: "example.com" });
    expect((await verifyTurnstile(input({ token: token() }))).ok).toBe(true);
    const fetchAnswer = vi.fn(async () =>
      Response.json({ success: true, hostname: "example.com", action: "contact", challenge_ts: "2026-01-01T00:00:00Z", "error-codes": [] }),
    );
    const real = await verifyTurnstile(input({ token: token(), secret: "0x4AAAAAAAreal-secret", fetch: fetchAnswer }));
    expect(real).toMatchObject({ ok: false, code: "turnstile_hostname_mismatch" });
  });

  it("refuses a token made for another action", async () => {
    const verdict = await verifyTurnstile(input({ token: standinToken({ action: "newsletter", hostname: "forms.example.net" }) }));
    expect(verdict).toMatchObject({ ok: false, code: "turnstile_action_mismatch" });
  });

  it.each([
    ["missing", undefined, "turnstile_token_missing"],
    ["empty", "", "turnstile_token_missing"],
    ["blank", "   ", "turnstile_token_missing"],
    ["not a string", ["a", "b"], "turnstile_token_missing"],
    ["too long", "x".repeat(MAX_TOKEN_LENGTH + 1), "turnstile_token_too_long"],
  ])("refuses a %s token without calling the provider", async (_label, token, code) => {
    expect(await verifyTurnstile(input({ token }))).toMatchObject({ ok: false, code });
    expect(standin.calls()).toHaveLength(0);
  });

  it("accepts a token of exactly 2048 characters as far as the provider", async () => {
    await verifyTurnstile(input({ token: "x".repeat(MAX_TOKEN_LENGTH) }));
    expect(standin.calls()).toHaveLength(1);
  });

  it("fails closed without calling anyone when the secret is missing", async () => {
    expect(await verifyTurnstile(input({ secret: undefined }))).toMatchObject({ ok: false, code: "turnstile_secret_missing" });
    expect(standin.calls()).toHaveLength(0);
  });

  it("maps the provider's missing-input-secret too", async () => {
    const fetchAnswer = async () => Response.json({ success: false, "error-codes": ["missing-input-secret"] });
    expect(await verifyTurnstile(input({ fetch: fetchAnswer }))).toMatchObject({ code: "turnstile_secret_missing" });
  });

  it.each([
    ["missing-input-response", "turnstile_token_missing"],
    ["bad-request", "turnstile_bad_request"],
    ["invalid-idempotency-key", "turnstile_bad_request"],
    ["invalid-widget-id", "turnstile_secret_invalid"],
    ["invalid-parsed-secret", "turnstile_secret_invalid"],
    ["something-new", "turnstile_rejected"],
  ])("maps provider error code %s to %s", async (providerCode, code) => {
    const fetchAnswer = async () => Response.json({ success: false, "error-codes": [providerCode] });
    expect(await verifyTurnstile(input({ fetch: fetchAnswer }))).toMatchObject({ ok: false, code, providerCodes: [providerCode] });
  });

  it("treats success without a true boolean as a refusal", async () => {
    const fetchAnswer = async () => Response.json({ success: "true", hostname: "forms.example.net", action: "contact" });
    expect(await verifyTurnstile(input({ fetch: fetchAnswer }))).toMatchObject({ ok: false, code: "turnstile_bad_response" });
  });
});

describe("verifyTurnstile when no verdict comes back", () => {
  it.each([
    ["http500", "turnstile_provider_error"],
    ["badjson", "turnstile_bad_response"],
    ["drop", "turnstile_network_error"],
    ["internal-error", "turnstile_internal_error"],
  ])("retries %s twice with the same idempotency key, then answers %s", async (mode, code) => {
    standin.setMode(mode);
    const verdict = await verifyTurnstile(input());
    expect(verdict).toMatchObject({ ok: false, code, retryable: true });
    const calls = standin.calls();
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c: { idempotency_key: string }) => c.idempotency_key)).size).toBe(1);
  });

  it("succeeds when a retry gets through, without the retry looking like a replay", async () => {
    standin.setMode("http500", { times: 1 });
    const verdict = await verifyTurnstile(input());
    expect(verdict.ok).toBe(true);
    expect(standin.calls()).toHaveLength(2);
  });

  it("gives up within the total budget when the provider is slow", async () => {
    standin.setMode("slow", { delayMs: 5_000 });
    // Every attempt waits for its own AbortSignal.timeout: together they may not outlast the budget.
    const timeouts = vi.spyOn(AbortSignal, "timeout");
    try {
      const verdict = await verifyTurnstile(input({ timeoutMs: 1_200, sleep: undefined }));
      expect(verdict).toMatchObject({ ok: false, code: "turnstile_timeout", retryable: true });
      const waited = timeouts.mock.calls.reduce((sum, [ms]) => sum + ms, 0);
      expect(waited).toBeLessThan(2_500);
    } finally {
      timeouts.mockRestore();
    }
  });

  it("never takes longer than 10 s, whatever timeout is asked for", async () => {
    const calls: number[] = [];
    const hang: typeof fetch = (_url, init) =>
      new Promise((_resolve, reject) => {
        calls.push(Date.now());
        init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
      });
    vi.useFakeTimers({ toFake: ["Date", "setTimeout"] });
    try {
      const pending = verifyTurnstile(input({ fetch: hang, timeoutMs: 60_000, sleep: undefined }));
      await vi.advanceTimersByTimeAsync(10_500);
      const verdict = await pending;
      expect(verdict).toMatchObject({ ok: false });
    } finally {
      vi.useRealTimers();
    }
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(calls.length).toBeLessThanOrEqual(3);
  });
});

describe("verify URL safety", () => {
  let plain: Server;
  beforeAll(async () => {
    plain = createServer((_req, res) => res.end("{}"));
    await new Promise<void>((r) => plain.listen(0, "127.0.0.1", r));
  });
  afterAll(() => new Promise<void>((r) => plain.close(() => r())));

  it.each([
    "http://challenges.example.com/turnstile/v0/siteverify",
    "http://10.0.0.5/siteverify",
    "ftp://127.0.0.1/siteverify",
    "not a url",
  ])("refuses the non-https, non-loopback verify URL %s without calling it", async (verifyUrl) => {
    const spy = vi.fn(fetch);
    const verdict = await verifyTurnstile(input({ verifyUrl, fetch: spy }));
    expect(verdict).toMatchObject({ ok: false, code: "turnstile_verify_url_insecure" });
    expect(spy).not.toHaveBeenCalled();
  });

  it("allows plain http to loopback, which is where the stand-in runs", async () => {
    const verdict = await verifyTurnstile(input());
    expect(verdict.ok).toBe(true);
  });
});

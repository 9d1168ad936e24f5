import { beforeEach, describe, expect, it } from "vitest";
import { appFetch, at, clearTables, standin, standinToken, testEnv } from "./helpers";
import { expectConsoleErrors } from "../support/fail-on-console";

// POST /api/turnstile/verify: the same verifier as the forms, for other backends.
beforeEach(async () => {
  await standin.reset();
  await clearTables();
});

function verifyCall(body: unknown, headers: Record<string, string> = {}, ip = "192.0.2.50") {
  return new Request("http://localhost/api/turnstile/verify", {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { "content-type": "application/json", "CF-Connecting-IP": ip, ...headers },
  });
}

describe("POST /api/turnstile/verify", () => {
  it("answers a good token with success, hostname, action, challenge_ts and no error codes", async () => {
    const response = await appFetch(verifyCall({ token: standinToken({ action: "signup" }) }));
    expect(response.status).toBe(200);
    const body = await response.json<Record<string, unknown>>();
    expect(body).toEqual({
      success: true,
      hostname: "localhost",
      action: "signup",
      challenge_ts: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      error_codes: [],
    });
    expect(response.headers.get("RateLimit")).toMatch(/^"minute";r=59;t=\d+$/);
    expect(response.headers.get("RateLimit-Policy")).toBe('"minute";q=60;w=60, "day";q=1000;w=86400');
    const [call] = await standin.calls();
    expect(call.remoteip).toBe("192.0.2.50");
  });

  it("checks the action when one is given", async () => {
    const ok = await appFetch(verifyCall({ token: standinToken({ action: "signup" }), action: "signup" }));
    expect((await ok.json<{ success: boolean }>()).success).toBe(true);
    const wrong = await appFetch(verifyCall({ token: standinToken({ action: "signup" }), action: "login" }));
    expect(wrong.status).toBe(200);
    expect(await wrong.json()).toEqual({
      success: false,
      hostname: null,
      action: null,
      challenge_ts: null,
      error_codes: ["turnstile_action_mismatch"],
    });
    expect(wrong.headers.get("Gatepost-Error-Code")).toBe("turnstile_action_mismatch");
  });

  it("says success: false for a missing, oversized or replayed token", async () => {
    const missing = await appFetch(verifyCall({}));
    expect((await missing.json<{ error_codes: string[] }>()).error_codes).toEqual(["turnstile_token_missing"]);
    const huge = await appFetch(verifyCall({ token: "x".repeat(2049) }));
    expect((await huge.json<{ error_codes: string[] }>()).error_codes).toEqual(["turnstile_token_too_long"]);
    expect(await standin.calls()).toHaveLength(0);
    const token = standinToken();
    await appFetch(verifyCall({ token }));
    const replay = await appFetch(verifyCall({ token }));
    expect((await replay.json<{ error_codes: string[] }>()).error_codes).toEqual(["turnstile_expired_or_duplicate"]);
  });

  it("fails closed with a 5xx problem when the provider is down or the secret is missing", async () => {
    const logged = expectConsoleErrors(/Turnstile verification unavailable for the verify endpoint/);
    await standin.setMode("http500");
    const down = await appFetch(verifyCall({ token: standinToken() }));
    expect(down.status).toBe(503);
    expect((await down.json<{ code: string }>()).code).toBe("turnstile_provider_error");
    await standin.reset();
    const noSecret = await appFetch(verifyCall({ token: standinToken() }), testEnv({ TURNSTILE_SECRET_KEY: "" }));
    expect(noSecret.status).toBe(500);
    expect((await noSecret.json<{ code: string }>()).code).toBe("turnstile_secret_missing");
    expect(logged()).toHaveLength(2);
  });

  it("refuses bad calls with problem+json: junk body, bad action, browser from another origin, GET", async () => {
    const junk = await appFetch(verifyCall("{not json"));
    expect(junk.status).toBe(400);
    expect(junk.headers.get("content-type")).toContain("application/problem+json");
    expect((await junk.json<{ code: string }>()).code).toBe("malformed_body");
    const action = await appFetch(verifyCall({ token: "t", action: ["x"] }));
    expect((await action.json<{ code: string }>()).code).toBe("malformed_body");
    const browser = await appFetch(verifyCall({ token: standinToken() }, { Origin: "https://elsewhere.example" }));
    expect(browser.status).toBe(403);
    expect((await browser.json<{ code: string }>()).code).toBe("origin_not_allowed");
    const get = await appFetch(new Request("http://localhost/api/turnstile/verify"));
    expect(get.status).toBe(405);
    expect((await get.json<{ code: string }>()).code).toBe("method_not_allowed");
    expect(await standin.calls()).toHaveLength(0);
  });

  it("checks the origin before the body, and caps the body's fields like the forms", async () => {
    const foreign = await appFetch(verifyCall("{not json", { Origin: "https://elsewhere.example" }));
    expect(foreign.status).toBe(403);
    expect((await foreign.json<{ code: string }>()).code).toBe("origin_not_allowed");
    const repeated = await appFetch(
      new Request("http://localhost/api/turnstile/verify", {
        method: "POST",
        body: "token=x&".repeat(8_000),
        headers: { "content-type": "application/x-www-form-urlencoded", "CF-Connecting-IP": "198.51.100.9" },
      }),
    );
    expect(repeated.status).toBe(413);
    expect((await repeated.json<{ code: string }>()).code).toBe("too_many_fields");
    expect(await standin.calls()).toHaveLength(0);
  });

  it("is rate-limited per IP: the 61st call in a minute gets 429 with Retry-After", async () => {
    // The clock stands still half way through a minute, so every call lands in one window.
    const now = at(Date.UTC(2026, 10, 22, 12, 0, 30));
    const call = (ip: string) => appFetch(verifyCall({}, {}, ip), testEnv(), { now });
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) statuses.push((await call("192.0.2.77")).status);
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(statuses[60]).toBe(429);
    const over = await call("192.0.2.77");
    expect(over.headers.get("Retry-After")).toBe("30");
    expect(over.headers.get("RateLimit")).toBe('"minute";r=0;t=30');
    expect((await over.json<{ code: string }>()).code).toBe("rate_limited");
    // Another client is not affected.
    expect((await call("192.0.2.78")).status).toBe(200);
  });
});

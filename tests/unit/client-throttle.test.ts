import { describe, expect, it, vi } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { createIsolateLimiter, submitLimiter, SUBMIT_LIMITER_RULE, throttleBeforeProvider } from "~/lib/http/client-throttle.server";

// The throttle in front of siteverify (docs/decisions/028): the Workers Rate Limiting binding when
// the deployment has one, else a fixed-window budget kept in the isolate's memory.

describe("createIsolateLimiter", () => {
  it("allows `limit` calls per key in a fixed window, then refuses until the next window", async () => {
    let now = 1_000_000;
    const limiter = createIsolateLimiter({ limit: 3, periodSeconds: 60, now: () => now });
    const results = [];
    for (let i = 0; i < 5; i++) results.push((await limiter.limit({ key: "a" })).success);
    expect(results).toEqual([true, true, true, false, false]);
    expect((await limiter.limit({ key: "b" })).success).toBe(true);
    now = 60_000 * Math.ceil(now / 60_000);
    expect((await limiter.limit({ key: "a" })).success).toBe(true);
  });

  it("keeps at most maxKeys keys, forgetting the oldest first", async () => {
    const limiter = createIsolateLimiter({ limit: 1, periodSeconds: 60, maxKeys: 2, now: () => 0 });
    expect((await limiter.limit({ key: "a" })).success).toBe(true);
    expect((await limiter.limit({ key: "b" })).success).toBe(true);
    expect((await limiter.limit({ key: "a" })).success).toBe(false);
    // A third key pushes out "a", the oldest; "b" is still counted.
    expect((await limiter.limit({ key: "c" })).success).toBe(true);
    expect((await limiter.limit({ key: "b" })).success).toBe(false);
    expect(limiter.size()).toBe(2);
  });
});

describe("submitLimiter", () => {
  it("uses the SUBMIT_LIMITER binding when the deployment has one", async () => {
    const binding = { limit: vi.fn(async () => ({ success: false })) };
    const limiter = submitLimiter({ SUBMIT_LIMITER: binding }, { limit: 100, periodSeconds: 60 });
    expect(await throttleBeforeProvider(limiter, "submit:contact:203.0.113.7")).toBe(false);
    expect(binding.limit).toHaveBeenCalledWith({ key: "submit:contact:203.0.113.7" });
  });

  it("falls back to one isolate budget per rule without a binding", async () => {
    const rule = { limit: 2, periodSeconds: 60 };
    const key = `submit:contact:${crypto.randomUUID()}`;
    expect(submitLimiter({}, rule)).toBe(submitLimiter({}, rule));
    const verdicts = [];
    for (let i = 0; i < 3; i++) verdicts.push(await throttleBeforeProvider(submitLimiter({}, rule), key));
    expect(verdicts).toEqual([true, true, false]);
  });

  it("counts in the isolate when the binding fails, and says so", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const broken = { limit: async () => Promise.reject(new Error("binding unavailable")) };
    const rule = { limit: 1, periodSeconds: 60 };
    const key = `submit:contact:${crypto.randomUUID()}`;
    expect(await throttleBeforeProvider(submitLimiter({ SUBMIT_LIMITER: broken }, rule), key)).toBe(true);
    expect(await throttleBeforeProvider(submitLimiter({ SUBMIT_LIMITER: broken }, rule), key)).toBe(false);
    expect(logged.mock.calls.flat().join(" ")).toContain("binding unavailable");
    logged.mockRestore();
  });
});

describe("SUBMIT_LIMITER_RULE", () => {
  it("is what wrangler.toml configures the binding with, so the RateLimit fields of its refusals tell the truth", () => {
    const toml = readFileSync(path.resolve(__dirname, "../../wrangler.toml"), "utf8");
    const binding = /name = "SUBMIT_LIMITER"[^[]*simple = \{ limit = (\d+), period = (\d+) \}/.exec(toml);
    expect(binding?.slice(1).map(Number)).toEqual([SUBMIT_LIMITER_RULE.limit, SUBMIT_LIMITER_RULE.periodSeconds]);
  });
});

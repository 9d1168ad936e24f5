import { describe, expect, it } from "vitest";
import { ipSubject } from "~/lib/http/client-ip.server";
import { formRateRules, judgeRateLimits, rateLimitHeaders, refusedBy, type RateRule } from "~/lib/http/rate-limit.server";

const MINUTE: RateRule = { key: "k", limit: 5, windowSeconds: 60 };
const DAY: RateRule = { key: "k", limit: 50, windowSeconds: 86_400 };
// 12:00:30 UTC: 30 s left in the minute window, 11 h 59 min 30 s in the day window.
const NOW = Date.UTC(2026, 0, 1, 12, 0, 30);

describe("judgeRateLimits", () => {
  it("passes while every count is within its limit, reporting the tightest remaining", () => {
    expect(judgeRateLimits([MINUTE, DAY], [3, 40], NOW)).toEqual({ ok: true, limit: 5, remaining: 2, resetSeconds: 30, rule: MINUTE });
    expect(judgeRateLimits([MINUTE, DAY], [1, 49], NOW)).toEqual({ ok: true, limit: 50, remaining: 1, resetSeconds: 43_170, rule: DAY });
  });

  it("allows exactly the limit: the 5th hit passes, the 6th does not", () => {
    expect(judgeRateLimits([MINUTE], [5], NOW).ok).toBe(true);
    expect(judgeRateLimits([MINUTE], [6], NOW)).toEqual({ ok: false, limit: 5, remaining: 0, resetSeconds: 30, rule: MINUTE });
  });

  it("when several rules are over, reports the one that lasts longest", () => {
    const verdict = judgeRateLimits([MINUTE, DAY], [9, 51], NOW);
    expect(verdict.ok).toBe(false);
    expect(verdict.resetSeconds).toBe(43_170);
    expect(verdict.limit).toBe(50);
  });

  it("passes with no rules", () => {
    expect(judgeRateLimits([], [], NOW).ok).toBe(true);
  });
});

describe("ipSubject", () => {
  it("keeps IPv4 addresses whole", () => {
    expect(ipSubject("203.0.113.7")).toBe("203.0.113.7");
  });

  it("groups IPv6 by its /64, whatever the spelling", () => {
    const a = ipSubject("2001:db8:1:2::1");
    expect(a).toBe("2001:db8:1:2::/64");
    expect(ipSubject("2001:0DB8:0001:0002:ffff:ffff:ffff:ffff")).toBe(a);
    expect(ipSubject("2001:db8:1:3::1")).not.toBe(a);
    expect(ipSubject("::1")).toBe("0:0:0:0::/64");
    expect(ipSubject("2001:db8::")).toBe("2001:db8:0:0::/64");
  });

  it("counts requests without CF-Connecting-IP together", () => {
    expect(ipSubject(null)).toBe("unknown");
  });
});

// draft-ietf-httpapi-ratelimit-headers-11 §3 and §4: each field is a Structured Fields List of String
// items with Integer parameters: q (required) and w for a policy, r (required) and t for a service limit.
const POLICY_ITEM = /^"[\x20-\x21\x23-\x5b\x5d-\x7e]+";q=\d+;w=[1-9]\d*$/;
const LIMIT_ITEM = /^"[\x20-\x21\x23-\x5b\x5d-\x7e]+";r=\d+;t=\d+$/;
const items = (value: string | null) => (value ?? "").split(/,[ \t]*/);

describe("rateLimitHeaders and formRateRules", () => {
  it("describes a refusal with Retry-After, RateLimit and RateLimit-Policy as draft -11 defines them", () => {
    const rules = formRateRules("contact", { perMinute: 5, perDay: 50 }, "2001:db8:1:2::9");
    expect(rules.map((r) => [r.key, r.limit, r.windowSeconds])).toEqual([
      ["form:contact:ip:2001:db8:1:2::/64", 5, 60],
      ["form:contact:ip:2001:db8:1:2::/64", 50, 86_400],
    ]);
    const headers = rateLimitHeaders(judgeRateLimits(rules, [6, 6], NOW), rules);
    expect(headers.get("Retry-After")).toBe("30");
    expect(headers.get("RateLimit")).toBe('"minute";r=0;t=30');
    expect(headers.get("RateLimit-Policy")).toBe('"minute";q=5;w=60, "day";q=50;w=86400');
    expect(items(headers.get("RateLimit-Policy")).every((item) => POLICY_ITEM.test(item))).toBe(true);
    expect(items(headers.get("RateLimit")).every((item) => LIMIT_ITEM.test(item))).toBe(true);
  });

  it("names the tightest rule while posts are still taken, without Retry-After", () => {
    const rules = formRateRules("contact", { perMinute: 5, perDay: 50 }, "203.0.113.9");
    const allowed = rateLimitHeaders(judgeRateLimits(rules, [1, 48], NOW), rules);
    expect(allowed.get("Retry-After")).toBeNull();
    expect(allowed.get("RateLimit")).toMatch(/^"day";r=2;t=\d+$/);
    expect(rateLimitHeaders(judgeRateLimits(rules, [1, 1], NOW), rules).get("RateLimit")).toBe('"minute";r=4;t=30');
  });

  it("gives a refusal made elsewhere (the throttle's binding) the same three fields", () => {
    const rule = { key: "submit:contact:net", limit: 20, windowSeconds: 60, policy: "burst" };
    const headers = rateLimitHeaders(refusedBy(rule, 60), [rule]);
    expect(Object.fromEntries(headers)).toEqual({
      "ratelimit-policy": '"burst";q=20;w=60',
      ratelimit: '"burst";r=0;t=60',
      "retry-after": "60",
    });
  });

  it("keeps a policy's name a valid Structured Fields String", () => {
    const rule = { key: "k", limit: 1, windowSeconds: 5, policy: 'a"b\\c\u00e9' };
    expect(rateLimitHeaders(judgeRateLimits([rule], [2], NOW), [rule]).get("RateLimit-Policy")).toBe('"abc";q=1;w=5');
    expect(
      rateLimitHeaders(judgeRateLimits([{ key: "k", limit: 1, windowSeconds: 900 }], [2], NOW), [
        { key: "k", limit: 1, windowSeconds: 900 },
      ]).get("RateLimit"),
    ).toMatch(/^"900s";r=0;t=\d+$/);
  });
});

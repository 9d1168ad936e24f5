import { describe, expect, it } from "vitest";
import { ipSubject } from "~/lib/http/client-ip.server";
import { formRateRules, judgeRateLimits, rateLimitHeaders, type RateRule } from "~/lib/http/rate-limit.server";

const MINUTE: RateRule = { key: "k", limit: 5, windowSeconds: 60 };
const DAY: RateRule = { key: "k", limit: 50, windowSeconds: 86_400 };
// 12:00:30 UTC: 30 s left in the minute window, 11 h 59 min 30 s in the day window.
const NOW = Date.UTC(2026, 0, 1, 12, 0, 30);

describe("judgeRateLimits", () => {
  it("passes while every count is within its limit, reporting the tightest remaining", () => {
    expect(judgeRateLimits([MINUTE, DAY], [3, 40], NOW)).toEqual({ ok: true, limit: 5, remaining: 2, resetSeconds: 30 });
    expect(judgeRateLimits([MINUTE, DAY], [1, 49], NOW)).toEqual({ ok: true, limit: 50, remaining: 1, resetSeconds: 43_170 });
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

describe("rateLimitHeaders and formRateRules", () => {
  it("describes a refusal with Retry-After, RateLimit and RateLimit-Policy", () => {
    const rules = formRateRules("contact", { perMinute: 5, perDay: 50 }, "2001:db8:1:2::9");
    expect(rules.map((r) => [r.key, r.limit, r.windowSeconds])).toEqual([
      ["form:contact:ip:2001:db8:1:2::/64", 5, 60],
      ["form:contact:ip:2001:db8:1:2::/64", 50, 86_400],
    ]);
    const headers = rateLimitHeaders(judgeRateLimits(rules, [6, 6], NOW), rules);
    expect(headers.get("Retry-After")).toBe("30");
    expect(headers.get("RateLimit")).toBe("limit=5, remaining=0, reset=30");
    expect(headers.get("RateLimit-Policy")).toBe("5;w=60, 50;w=86400");
    expect(rateLimitHeaders(judgeRateLimits(rules, [1, 1], NOW), rules).get("Retry-After")).toBeNull();
  });
});

import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { keyLookup } from "~/lib/submit/idempotency.server";
import { hitRateLimits, hitRateLimitsWith, pruneRateLimits, type RateRule } from "~/lib/http/rate-limit.server";
import { apiPost, appFetch, awayFromMinuteEdge, clearTables, countRows, formPost, standin, testEnv } from "./helpers";

// Exactness of the D1 counters under concurrency, and the 429 the forms give (docs/decisions/002).
beforeEach(async () => {
  await standin.reset();
  await clearTables();
  await awayFromMinuteEdge();
});

const defaults = () => testEnv({ FORM_RATE_LIMIT_PER_MINUTE: "", FORM_RATE_LIMIT_PER_DAY: "" });

describe("hitRateLimits against real D1", () => {
  it("lets exactly `limit` of 40 concurrent hits through", async () => {
    const rules: RateRule[] = [{ key: "test:concurrent", limit: 7, windowSeconds: 3600 }];
    const now = Date.now();
    const verdicts = await Promise.all(Array.from({ length: 40 }, () => hitRateLimits(env.DB, rules, now)));
    expect(verdicts.filter((v) => v.ok)).toHaveLength(7);
    const row = await env.DB.prepare("SELECT count FROM rate_limits WHERE key = 'test:concurrent:3600'").first<{ count: number }>();
    expect(row?.count).toBe(40);
  });

  it("starts a fresh count in the next window and prunes old windows", async () => {
    const rules: RateRule[] = [{ key: "test:window", limit: 1, windowSeconds: 60 }];
    const t0 = Date.UTC(2026, 0, 1, 12, 0, 0);
    expect((await hitRateLimits(env.DB, rules, t0)).ok).toBe(true);
    expect((await hitRateLimits(env.DB, rules, t0 + 59_000)).ok).toBe(false);
    expect((await hitRateLimits(env.DB, rules, t0 + 60_000)).ok).toBe(true);
    await pruneRateLimits(env.DB, t0 + 3 * 86_400_000);
    expect(await countRows("rate_limits")).toBe(0);
  });
});

describe("form rate limits", () => {
  it("gives the 6th post in a minute 429 with Retry-After and RateLimit headers (default 5 a minute)", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await appFetch(apiPost("contact", {}), defaults())).status);
    expect(statuses).toEqual([422, 422, 422, 422, 422]);
    const over = await appFetch(apiPost("contact", {}), defaults());
    expect(over.status).toBe(429);
    expect((await over.json<{ code: string }>()).code).toBe("rate_limited");
    const retryAfter = Number(over.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(over.headers.get("RateLimit")).toBe(`limit=5, remaining=0, reset=${retryAfter}`);
    expect(over.headers.get("RateLimit-Policy")).toBe("5;w=60, 50;w=86400");
  });

  it("counts exactly under 20 concurrent posts from one client", async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => appFetch(apiPost("contact", {}), defaults())));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    expect(statuses.filter((s) => s === 422)).toHaveLength(5);
  });

  it("groups IPv6 clients by /64, keeps IPv4 clients apart, and ignores X-Forwarded-For", async () => {
    const post = (ip: string, extra: Record<string, string> = {}) =>
      appFetch(apiPost("contact", {}, { headers: { "CF-Connecting-IP": ip, ...extra } }), defaults());
    for (let i = 1; i <= 5; i++) expect((await post(`2001:db8:1:2::${i}`)).status).toBe(422);
    expect((await post("2001:db8:1:2:ffff:ffff:ffff:ffff")).status).toBe(429);
    expect((await post("2001:db8:1:3::1")).status).toBe(422);
    for (let i = 0; i < 5; i++) await post("203.0.113.50");
    expect((await post("203.0.113.50", { "X-Forwarded-For": "198.51.100.1" })).status).toBe(429);
    expect((await post("203.0.113.51")).status).toBe(422);
  });

  it("takes the deployment's default from FORM_RATE_LIMIT_PER_MINUTE", async () => {
    const env2 = testEnv({ FORM_RATE_LIMIT_PER_MINUTE: "2", FORM_RATE_LIMIT_PER_DAY: "" });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await appFetch(apiPost("contact", {}), env2)).status);
    expect(statuses).toEqual([422, 422, 429]);
  });

  it("refuses the form page's 6th post with 429, Retry-After and the code, and keeps the message on the page", async () => {
    for (let i = 0; i < 5; i++) await appFetch(formPost("/f/newsletter", { email: "x" }), defaults());
    const over = await appFetch(formPost("/f/newsletter", { email: "reader@example.org" }), defaults());
    expect(over.status).toBe(429);
    expect(over.headers.get("Gatepost-Error-Code")).toBe("rate_limited");
    expect(Number(over.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(over.headers.get("RateLimit")).toMatch(/^limit=5, remaining=0, reset=\d+$/);
    expect(await over.text()).toContain("Too many submissions from your network");
    expect(await standin.calls()).toHaveLength(0);
  });
});

describe("hitRateLimitsWith: a lookup in the counting statement", () => {
  it("counts every rule and returns the lookup's value, in one statement", async () => {
    const t = Date.UTC(2026, 10, 22, 12, 0, 30);
    const rules: RateRule[] = [
      { key: "look:ip:203.0.113.9", limit: 2, windowSeconds: 60 },
      { key: "look:ip:203.0.113.9", limit: 9, windowSeconds: 86_400 },
    ];
    await env.DB.prepare("INSERT INTO submissions (id, form_id, fields, received_at, idempotency_key) VALUES ('s-1', 'contact', '{}', 'x', 'k-1')").run();
    const found = await hitRateLimitsWith(env.DB, rules, keyLookup("contact", "k-1"), t);
    expect(found).toMatchObject({ ok: true, lookedUp: "s-1", verdict: { ok: true, limit: 2, remaining: 1 } });
    const missing = await hitRateLimitsWith(env.DB, rules, keyLookup("contact", "k-2"), t);
    expect(missing).toMatchObject({ ok: true, lookedUp: null, verdict: { ok: true, remaining: 0 } });
    // Another form's key is not this form's.
    expect(await hitRateLimitsWith(env.DB, rules, keyLookup("newsletter", "k-1"), t)).toMatchObject({ lookedUp: null, verdict: { ok: false } });
    // Without rules the lookup still answers.
    expect(await hitRateLimitsWith(env.DB, [], keyLookup("contact", "k-1"), t)).toMatchObject({ ok: true, lookedUp: "s-1" });
  });
});

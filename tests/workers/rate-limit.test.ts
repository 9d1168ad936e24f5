import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { findReplay, storeInOneTrip } from "~/lib/storage/accept-batch.server";
import type { RateRule } from "~/lib/http/rate-limit.server";
import { budgetFor } from "~/lib/platform/budget.server";
import { hitRateLimits, staleRateLimits } from "~/lib/storage/rate-limits.server";
import { pruneInChunks } from "~/lib/storage/sql.server";
import { apiPost, appFetch, at, clearTables, countRows, formPost, sink, sinkEnv, standin, standinToken, testEnv } from "./helpers";

// Exactness of the D1 counters under concurrency, and the 429 the forms give (docs/decisions/002).
beforeEach(async () => {
  await standin.reset();
  await sink.reset();
  await clearTables();
});

const VALID = { name: "Ada Lovelace", email: "ada@example.org", message: "Counting against the limits." };
/** A post that passes every check before the store, so only the limit can refuse it. */
const valid = (ip = "198.51.100.20", headers: Record<string, string> = {}) =>
  apiPost("contact", { ...VALID, "cf-turnstile-response": standinToken() }, { headers: { "CF-Connecting-IP": ip, ...headers } });
const defaults = () => testEnv({ FORM_RATE_LIMIT_PER_MINUTE: "", FORM_RATE_LIMIT_PER_DAY: "" });
// The app's clock stands still half way through a minute, so a test's posts all land in one window.
const NOW = Date.UTC(2026, 10, 22, 12, 0, 30);
const postNow = (request: Request, appEnv: Env) => appFetch(request, appEnv, { now: at(NOW) });

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
    await pruneInChunks(env.DB, [staleRateLimits(t0 + 3 * 86_400_000)], budgetFor("free"));
    expect(await countRows("rate_limits")).toBe(0);
  });
});

describe("form rate limits", () => {
  it("gives the 6th post in a minute 429 with Retry-After and RateLimit headers (default 5 a minute)", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await postNow(valid(), defaults())).status);
    expect(statuses).toEqual([201, 201, 201, 201, 201]);
    const over = await postNow(valid(), defaults());
    expect(over.status).toBe(429);
    expect((await over.json<{ code: string }>()).code).toBe("rate_limited");
    const retryAfter = Number(over.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // draft-ietf-httpapi-ratelimit-headers-11: the policies, and the one that refused with what is left of it.
    expect(over.headers.get("RateLimit")).toBe(`"minute";r=0;t=${retryAfter}`);
    expect(over.headers.get("RateLimit-Policy")).toBe('"minute";q=5;w=60, "day";q=50;w=86400');
  });

  it("counts exactly under 20 concurrent posts from one client", async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => postNow(valid(), defaults())));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
  });

  it("accepts exactly 7 of 40 concurrent posts against a limit of 7, storing nothing for the other 33", async () => {
    const appEnv = sinkEnv({ FORM_RATE_LIMIT_PER_MINUTE: "7", FORM_RATE_LIMIT_PER_DAY: "" });
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => postNow(valid("203.0.113.70", { "Idempotency-Key": crypto.randomUUID() }), appEnv)),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(7);
    expect(statuses.filter((s) => s === 429)).toHaveLength(33);
    for (const over of answers.filter((r) => r.status === 429)) {
      expect(Number(over.headers.get("Retry-After"))).toBeGreaterThan(0);
      expect(over.headers.get("RateLimit")).toMatch(/^"minute";r=0;t=\d+$/);
    }
    expect(await countRows("submissions")).toBe(7);
    expect(await countRows("deliveries")).toBe(7);
  });

  it("never counts a post refused before the store: invalid fields or a failed captcha use none of the limit", async () => {
    const env2 = testEnv({ FORM_RATE_LIMIT_PER_MINUTE: "2", FORM_RATE_LIMIT_PER_DAY: "" });
    for (let i = 0; i < 5; i++) expect((await postNow(apiPost("contact", {}), env2)).status).toBe(422);
    const failing = testEnv({
      FORM_RATE_LIMIT_PER_MINUTE: "2",
      FORM_RATE_LIMIT_PER_DAY: "",
      TURNSTILE_SECRET_KEY: "2x0000000000000000000000000000000AA",
    });
    for (let i = 0; i < 5; i++) expect((await postNow(valid(), failing)).status).toBe(400);
    expect(await countRows("rate_limits")).toBe(0);
    expect([(await postNow(valid(), env2)).status, (await postNow(valid(), env2)).status, (await postNow(valid(), env2)).status]).toEqual([
      201, 201, 429,
    ]);
  });

  it("groups IPv6 clients by /64, keeps IPv4 clients apart, and ignores X-Forwarded-For", async () => {
    const post = (ip: string, extra: Record<string, string> = {}) => postNow(valid(ip, extra), defaults());
    for (let i = 1; i <= 5; i++) expect((await post(`2001:db8:1:2::${i}`)).status).toBe(201);
    expect((await post("2001:db8:1:2:ffff:ffff:ffff:ffff")).status).toBe(429);
    expect((await post("2001:db8:1:3::1")).status).toBe(201);
    for (let i = 0; i < 5; i++) await post("203.0.113.50");
    expect((await post("203.0.113.50", { "X-Forwarded-For": "198.51.100.1" })).status).toBe(429);
    expect((await post("203.0.113.51")).status).toBe(201);
  });

  it("takes the deployment's default from FORM_RATE_LIMIT_PER_MINUTE", async () => {
    const env2 = testEnv({ FORM_RATE_LIMIT_PER_MINUTE: "2", FORM_RATE_LIMIT_PER_DAY: "" });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await postNow(valid(), env2)).status);
    expect(statuses).toEqual([201, 201, 429]);
  });

  it("refuses the form page's 6th post with 429, Retry-After and the code, and keeps the message on the page", async () => {
    const post = () =>
      postNow(
        formPost(
          "/f/newsletter",
          { email: "reader@example.org", consent: "on", "cf-turnstile-response": standinToken({ action: "newsletter" }) },
          {},
          { nowMs: NOW },
        ),
        defaults(),
      );
    for (let i = 0; i < 5; i++) expect((await post()).status).toBe(303);
    const over = await post();
    expect(over.status).toBe(429);
    expect(over.headers.get("Gatepost-Error-Code")).toBe("rate_limited");
    expect(Number(over.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(over.headers.get("RateLimit")).toMatch(/^"minute";r=0;t=\d+$/);
    expect(await over.text()).toContain("Too many submissions from your network");
    // The provider goes first (ADR 012): a rate-limited post costs one siteverify, no write.
    expect(await standin.calls()).toHaveLength(6);
    expect(await countRows("submissions")).toBe(5);
  });
});

const NO_OUTBOX = { deliveries: [], confirmation: null };

describe("the accept batch: counted, guarded and stored in one round trip", () => {
  const t = Date.UTC(2026, 10, 22, 12, 0, 30);
  const rules: RateRule[] = [
    { key: "batch:ip:203.0.113.9", limit: 2, windowSeconds: 60 },
    { key: "batch:ip:203.0.113.9", limit: 9, windowSeconds: 86_400 },
  ];
  const submission = (id: string) => ({ id, formId: "contact", fields: { name: "Ada" }, verification: null });
  const store = (id: string, key: string | null, fingerprint: string | null) =>
    storeInOneTrip(env.DB, { rules, nowMs: t, submission: submission(id), key, fingerprint, outbox: NO_OUTBOX });

  it("stores within the limits, replays a known key with its fingerprint, refuses another fingerprint", async () => {
    expect(await store("s-1", "k-1", "fp-a")).toMatchObject({ kind: "stored", verdict: { ok: true, limit: 2, remaining: 1 } });
    expect(await store("s-2", "k-1", "fp-a")).toMatchObject({ kind: "replayed", id: "s-1", verdict: { ok: true, remaining: 0 } });
    // Over the limit, a known key is refused like any other hit (replays count).
    expect(await store("s-3", "k-1", "fp-a")).toMatchObject({ kind: "rate_limited", verdict: { ok: false } });
    expect(await countRows("submissions")).toBe(1);
    const later = t + 60_000;
    const again = await storeInOneTrip(env.DB, {
      rules,
      nowMs: later,
      submission: submission("s-4"),
      key: "k-1",
      fingerprint: "fp-b",
      outbox: NO_OUTBOX,
    });
    expect(again).toMatchObject({ kind: "key_reused" });
    expect(await countRows("submissions")).toBe(1);
  });

  it("counts a spent-token look-up only when the key is known (junk writes nothing)", async () => {
    expect(await findReplay(env.DB, { rules, nowMs: t, formId: "contact", key: "nobody", fingerprint: "fp" })).toBeNull();
    expect(await countRows("rate_limits")).toBe(0);
    await store("s-1", "k-1", "fp-a");
    expect(await findReplay(env.DB, { rules, nowMs: t, formId: "contact", key: "k-1", fingerprint: "fp-a" })).toMatchObject({
      kind: "replayed",
      id: "s-1",
      verdict: { ok: true, remaining: 0 },
    });
    expect(await findReplay(env.DB, { rules, nowMs: t, formId: "contact", key: "k-1", fingerprint: "fp-a" })).toMatchObject({
      kind: "rate_limited",
    });
    // Another form's key is not this form's.
    expect(await findReplay(env.DB, { rules, nowMs: t, formId: "newsletter", key: "k-1", fingerprint: "fp-a" })).toBeNull();
  });

  it("lets exactly `limit` of 40 concurrent batches store, and leaves no row behind a refusal", async () => {
    const tight: RateRule[] = [{ key: "batch:ip:198.51.100.4", limit: 7, windowSeconds: 60 }];
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        storeInOneTrip(env.DB, {
          rules: tight,
          nowMs: t,
          submission: submission(`c-${i}`),
          key: `key-${i}`,
          fingerprint: "fp",
          outbox: NO_OUTBOX,
        }),
      ),
    );
    expect(outcomes.filter((o) => o.kind === "stored")).toHaveLength(7);
    expect(outcomes.filter((o) => o.kind === "rate_limited")).toHaveLength(33);
    expect(await countRows("submissions")).toBe(7);
    expect(
      (await env.DB.prepare("SELECT COUNT(*) AS n FROM submissions WHERE idempotency_key IS NOT NULL").first<{ n: number }>())?.n,
    ).toBe(7);
  });
});

import { beforeEach, describe, expect, it } from "vitest";
import {
  apiPost,
  appFetch,
  at,
  clearTables,
  countingDb,
  countRows,
  formPost,
  standin,
  standinToken,
  testEnv,
  warmFormCatalog,
} from "./helpers";
import { env } from "cloudflare:test";
import { SUBMIT_LIMITER_RULE } from "~/lib/http/client-throttle.server";

// Junk tokens cannot drive unlimited siteverify calls on the owner's secret (docs/decisions/028): each
// client is throttled before the provider is asked, with no D1 round trip, by the SUBMIT_LIMITER
// binding when there is one and by an in-isolate budget when there is not. A post refused there keeps
// its token: it was never sent to the provider.

const VALID = { name: "Ada Lovelace", email: "ada@example.org", message: "Hello from the analytical engine." };

/** A SUBMIT_LIMITER that refuses (or allows) everything and remembers the keys it was asked about. */
function fakeLimiter(success: boolean) {
  const keys: string[] = [];
  return { keys, limit: async ({ key }: { key: string }) => (keys.push(key), { success }) };
}

let networks = 0;

/** A client network no other test uses (a /48 of its own, 2001:db8:f001:: on, counted rather than drawn by chance), so the isolate budget starts from nothing for it. */
function freshNetwork(): string {
  networks += 1;
  return `2001:db8:${(0xf000 + networks).toString(16)}::1`;
}

beforeEach(async () => {
  await standin.reset();
  await clearTables();
});

describe("the throttle before siteverify", () => {
  it("refuses with 429 rate_limited before the provider and D1, and the token still works afterwards", async () => {
    const token = standinToken();
    const refusing = fakeLimiter(false);
    await warmFormCatalog();
    const recorded = countingDb(env.DB);
    const refused = await appFetch(apiPost("contact", { ...VALID, "cf-turnstile-response": token }), {
      ...testEnv(),
      DB: recorded.db,
      SUBMIT_LIMITER: refusing,
    } as Env);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Gatepost-Error-Code")).toBe("rate_limited");
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    // The binding's own rule (wrangler.toml), as draft-ietf-httpapi-ratelimit-headers-11 writes it.
    expect(refused.headers.get("RateLimit-Policy")).toBe(`"burst";q=${SUBMIT_LIMITER_RULE.limit};w=${SUBMIT_LIMITER_RULE.periodSeconds}`);
    expect(refused.headers.get("RateLimit")).toBe(`"burst";r=0;t=${refused.headers.get("Retry-After")}`);
    expect(refusing.keys).toEqual(["submit:contact:198.51.100.20"]);
    expect(await standin.calls()).toHaveLength(0);
    expect(recorded.trips()).toBe(0);
    expect(await countRows("submissions")).toBe(0);
    // The same token, once the client may post again: never spent, so it is accepted.
    const accepted = await appFetch(apiPost("contact", { ...VALID, "cf-turnstile-response": token }), {
      ...testEnv(),
      SUBMIT_LIMITER: fakeLimiter(true),
    } as Env);
    expect(accepted.status).toBe(201);
    expect(await standin.calls()).toHaveLength(1);
  });

  it("throttles a page post the same way, keeping its answers, stamp and id on the page", async () => {
    const sid = crypto.randomUUID();
    const response = await appFetch(formPost("/f/contact", { ...VALID, _gp_sid: sid, "cf-turnstile-response": standinToken() }), {
      ...testEnv(),
      SUBMIT_LIMITER: fakeLimiter(false),
    } as Env);
    expect(response.status).toBe(429);
    expect(response.headers.get("Gatepost-Error-Code")).toBe("rate_limited");
    expect(Number(response.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(response.headers.get("RateLimit")).toMatch(/^"burst";r=0;t=\d+$/);
    const html = await response.text();
    expect(html).toContain(VALID.message);
    expect(html).toContain(`value="${sid}"`);
    expect(await standin.calls()).toHaveLength(0);
  });

  it("without a binding, counts each client network in the isolate: twice the form's minute limit, then no provider call", async () => {
    // Cloudflare's always-fail test secret: every token is junk to the provider.
    const junkEnv = {
      ...testEnv({ FORM_RATE_LIMIT_PER_MINUTE: "2", TURNSTILE_SECRET_KEY: "2x0000000000000000000000000000000AA" }),
      SUBMIT_LIMITER: undefined,
    } as unknown as Env;
    const network = freshNetwork();
    // The budget counts in fixed one-minute windows: the clock stands still, so six posts land in one.
    const now = at(Date.UTC(2026, 10, 22, 12, 0, 30));
    const statuses: number[] = [];
    // Junk tokens: the provider refuses each, and nothing is ever stored or counted in D1.
    for (let i = 0; i < 6; i++) {
      const response = await appFetch(
        apiPost("contact", { ...VALID, "cf-turnstile-response": "junk" }, { headers: { "CF-Connecting-IP": network } }),
        junkEnv,
        { now },
      );
      statuses.push(response.status);
    }
    expect(statuses).toEqual([400, 400, 400, 400, 429, 429]);
    expect(await standin.calls()).toHaveLength(4);
    expect(await countRows("rate_limits")).toBe(0);
    // Another /64 of the same /48 is the same client network.
    const sameNetwork = network.replace(/::1$/, "").split(":").slice(0, 3).join(":") + ":ffff::1";
    const rotated = await appFetch(
      apiPost("contact", { ...VALID, "cf-turnstile-response": "junk" }, { headers: { "CF-Connecting-IP": sameNetwork } }),
      junkEnv,
      { now },
    );
    expect(rotated.status).toBe(429);
    // Another network has its own budget.
    const other = await appFetch(
      apiPost("contact", { ...VALID, "cf-turnstile-response": standinToken() }, { headers: { "CF-Connecting-IP": freshNetwork() } }),
      { ...testEnv({ FORM_RATE_LIMIT_PER_MINUTE: "2" }), SUBMIT_LIMITER: undefined } as unknown as Env,
      { now },
    );
    expect(other.status).toBe(201);
  });
});

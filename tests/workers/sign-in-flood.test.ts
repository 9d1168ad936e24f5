import { env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEVICE_COOKIE } from "~/lib/auth/known-device.server";
import { LOGIN_GLOBAL_RULE, LOGIN_MISS_RULE, LOGIN_RATE_RULE, signInBudget } from "~/lib/auth/sign-in-budget.server";
import { windowKey } from "~/lib/http/rate-limit.server";
import { hitRateLimits } from "~/lib/storage/rate-limits.server";
import { expectConsoleErrors } from "../support/fail-on-console";
import { ADMIN_PASSWORD, adminEnv, adminPost, clearAdminTables } from "./admin-helpers";
import { appFetch, standin, standinToken } from "./helpers";

// Issue 51, D2 (docs/decisions/112): attempts refused with 429 spent the site-wide budget, so one
// address could keep every sign-in behind Turnstile, and no one could sign in with a password while
// Turnstile was down; 3-4 of 14 right passwords sent at once from one address got 429.

const MID_WINDOW = Math.floor(Date.now() / 900_000) * 900_000 + 450_000;
const FLOODER = "198.51.100.66";

beforeEach(async () => {
  await clearAdminTables();
  await standin.reset();
});
afterEach(() => standin.reset());

async function signIn(password: string, appEnv: Env, ip: string, extra: { cookie?: string; token?: string } = {}) {
  const fields: Record<string, string> = { password, next: "/admin" };
  if (extra.token) fields["cf-turnstile-response"] = extra.token;
  return appFetch(
    adminPost("/admin/login", fields, { "CF-Connecting-IP": ip, ...(extra.cookie ? { Cookie: extra.cookie } : {}) }),
    appEnv,
    { now: () => MID_WINDOW },
  );
}

async function siteCount(): Promise<number> {
  const site = signInBudget({ ip: null }).site!;
  const row = await env.DB.prepare("SELECT sum(count) AS n FROM rate_limits WHERE key = ?")
    .bind(windowKey(site))
    .first<{ n: number | null }>();
  return row?.n ?? 0;
}

/** The known-device cookie a sign-in set, as the browser sends it back. */
function deviceCookieOf(response: Response): string {
  const set = response.headers.getSetCookie().find((cookie) => cookie.startsWith(`${DEVICE_COOKIE}=`));
  expect(set, "a known-device cookie").toBeDefined();
  expect(set).toMatch(/HttpOnly/);
  expect(set).toMatch(/SameSite=Strict/);
  expect(set).toMatch(/Secure/);
  return set!.split(";")[0];
}

describe("a flood of wrong passwords from one address", () => {
  it(
    "spends at most that address's own budget site-wide: refused attempts count nowhere, and others need no check",
    { timeout: 60_000 },
    async () => {
      const appEnv = await adminEnv();
      for (let i = 0; i < LOGIN_MISS_RULE.limit; i++) expect((await signIn(`guess ${i}`, appEnv, FLOODER)).status).toBe(401);
      // Past its budget: 110 more, every one refused before any hash, and none counted site-wide.
      for (let round = 0; round < 11; round++) {
        const refused = await Promise.all(Array.from({ length: 10 }, (_, i) => signIn(`more ${round}.${i}`, appEnv, FLOODER)));
        for (const response of refused) {
          expect(response.status).toBe(429);
          expect(response.headers.get("Gatepost-Error-Code")).toBe("admin_rate_limited");
        }
      }
      expect(LOGIN_MISS_RULE.limit + 110).toBeGreaterThan(LOGIN_GLOBAL_RULE.limit);
      expect(await siteCount()).toBe(LOGIN_MISS_RULE.limit);
      // Anyone else signs in with the password alone: the site's budget is nowhere near spent.
      const owner = await signIn(ADMIN_PASSWORD, appEnv, "203.0.113.7");
      expect(owner.status).toBe(303);
      expect(await standin.calls()).toHaveLength(0);
    },
  );
});

describe("the owner's known device", () => {
  it("signs in while the site's budget is spent and Turnstile is down, even from the flooding address", { timeout: 60_000 }, async () => {
    const appEnv = await adminEnv();
    const first = await signIn(ADMIN_PASSWORD, appEnv, "203.0.113.7");
    expect(first.status).toBe(303);
    const device = deviceCookieOf(first);
    // Many addresses spent the site's budget, the flooding address its own, and the provider is down.
    for (let i = 0; i < LOGIN_GLOBAL_RULE.limit; i++) await hitRateLimits(env.DB, [signInBudget({ ip: FLOODER }).site!], MID_WINDOW);
    for (let i = 0; i < LOGIN_MISS_RULE.limit; i++) await hitRateLimits(env.DB, [signInBudget({ ip: FLOODER }).misses], MID_WINDOW);
    await standin.setMode("http500");
    const stranger = await signIn(ADMIN_PASSWORD, appEnv, "203.0.113.8");
    expect(stranger.status).toBe(429);
    expect(stranger.headers.get("Gatepost-Error-Code")).toBe("admin_check_required");
    const logged = expectConsoleErrors(/Turnstile verification unavailable for the sign-in/);
    expect((await signIn(ADMIN_PASSWORD, appEnv, "203.0.113.8", { token: standinToken({ action: "admin-sign-in" }) })).status).toBe(503);
    expect(logged()).toHaveLength(1);
    expect((await signIn(ADMIN_PASSWORD, appEnv, FLOODER)).status).toBe(429);

    for (const ip of ["203.0.113.7", FLOODER]) {
      const owner = await signIn(ADMIN_PASSWORD, appEnv, ip, { cookie: device });
      expect(owner.status, ip).toBe(303);
      // The same device, kept: its id does not change.
      expect(deviceCookieOf(owner)).toBe(device);
    }
    // A forged or foreign device cookie is no device: that sign-in is a stranger's.
    const [name, value] = device.split("=");
    const forged = `${name}=${value.slice(0, -3)}abc`;
    expect((await signIn(ADMIN_PASSWORD, appEnv, "203.0.113.9", { cookie: forged })).headers.get("Gatepost-Error-Code")).toBe(
      "admin_check_required",
    );
  });

  it("is locked out by its own wrong passwords, as an address is", { timeout: 60_000 }, async () => {
    const appEnv = await adminEnv();
    const device = deviceCookieOf(await signIn(ADMIN_PASSWORD, appEnv, "203.0.113.7"));
    for (let i = 0; i < LOGIN_MISS_RULE.limit; i++) {
      expect((await signIn(`guess ${i}`, appEnv, `203.0.113.${100 + i}`, { cookie: device })).status).toBe(401);
    }
    const locked = await signIn(ADMIN_PASSWORD, appEnv, "203.0.113.200", { cookie: device });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("Retry-After"))).toBe(450);
    // The device's guesses spent nothing site-wide.
    expect(await siteCount()).toBe(0);
  });
});

describe("right passwords sent at once from one address", () => {
  it("all sign in (14 at once), while wrong ones at once are bounded by the burst budget", { timeout: 90_000 }, async () => {
    const appEnv = await adminEnv();
    const together = await Promise.all(Array.from({ length: 14 }, () => signIn(ADMIN_PASSWORD, appEnv, "198.51.100.14")));
    expect(together.map((response) => response.status)).toEqual(Array(14).fill(303));
    // Their attempts were all taken back: the address's budgets are whole again.
    expect(await siteCount()).toBe(0);
    const guesses = await Promise.all(Array.from({ length: 30 }, (_, i) => signIn(`guess ${i}`, appEnv, "198.51.100.15")));
    const hashed = guesses.filter((response) => response.status === 401).length;
    expect(hashed).toBeGreaterThanOrEqual(LOGIN_MISS_RULE.limit);
    expect(hashed).toBeLessThanOrEqual(LOGIN_RATE_RULE.limit);
    expect(guesses.filter((response) => response.status === 429)).toHaveLength(30 - hashed);
    expect((await signIn(ADMIN_PASSWORD, appEnv, "198.51.100.15")).status).toBe(429);
  });
});

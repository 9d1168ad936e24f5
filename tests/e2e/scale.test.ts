import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
// @ts-expect-error - plain ESM helpers shared with npm start
import { applyLocalMigrations, startWorkerDev } from "../../scripts/worker-dev.mjs";
// @ts-expect-error - plain ESM helper
import { freePort } from "../../scripts/process-group.mjs";
// @ts-expect-error - plain ESM helper shared with the bench
import { seedInto } from "../../scripts/seed-into.mjs";
// @ts-expect-error - plain ESM helper shared with npm run admin:hash-password
import { hashPassword } from "../../scripts/hash-password.mjs";
import { PENDING_CAP } from "~/lib/storage/submission-list.server";
import { launchBrowser, watchErrors } from "./chromium";
import { WAIT, patient } from "./browser-page";

// The console on a seeded database (`npm run seed`, docs/decisions/060): an operator lists, filters,
// searches and pages through thousands of submissions by the pager's links. The newest UNINDEXED are
// not in the search index yet, as while the cron catches up (ADR 101): more than a search reads by
// their text, so the page says it left some out until the cron has run. Its own server and database,
// so the seeded rows do not change what the other e2e files see.

const SUBMISSIONS = 3_000;
/** More than a search reads by text. */
const UNINDEXED = PENDING_CAP + 100;
const NOTICE = "Some of the newest submissions are not in the search index yet";
const PASSWORD = "scale e2e password 0123456789";
const ROOT = path.resolve(__dirname, "../..");
const persistTo = path.join(ROOT, ".wrangler", `e2e-scale-${process.pid}`);

let browser: Browser;
let site: { url: string; tick: () => Promise<void>; stop: () => Promise<void> };

beforeAll(async () => {
  rmSync(persistTo, { recursive: true, force: true });
  mkdirSync(persistTo, { recursive: true });
  applyLocalMigrations({ persistTo });
  seedInto(persistTo, SUBMISSIONS, { timeoutMs: 120_000, unindexed: UNINDEXED });
  site = await startWorkerDev({
    port: await freePort(),
    persistTo,
    bindings: {
      TURNSTILE_SITE_KEY: "1x00000000000000000000AA",
      TURNSTILE_SECRET_KEY: "1x0000000000000000000000000000000AA",
      TURNSTILE_VERIFY_URL: `${inject("standinOrigin")}/turnstile/v0/siteverify`,
      TURNSTILE_SCRIPT_URL: `${inject("standinOrigin")}/turnstile/v0/api.js`,
      ADMIN_PASSWORD_HASH: await hashPassword(PASSWORD),
      SESSION_SECRET: "e2e-scale-session-secret-0123456789abcdef0123",
    },
  });
  browser = await launchBrowser(inject("chromiumPath"));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await site?.stop();
  rmSync(persistTo, { recursive: true, force: true });
});

/** The submissions the list shows, by their open links' names, in order. */
async function listed(page: Page): Promise<string[]> {
  return page
    .getByRole("link", { name: /^Open submission / })
    .evaluateAll((links) => links.map((link) => link.getAttribute("aria-label") ?? ""));
}

describe(`the console on ${SUBMISSIONS} seeded submissions`, () => {
  it("lists, filters, searches and pages by the pager's links", async () => {
    const page = patient(await browser.newPage());
    const errors = watchErrors(page);
    await page.goto(`${site.url}/admin/login`);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Dashboard" }).waitFor(WAIT);

    await page.getByRole("link", { name: "Submissions", exact: true }).click();
    await page.getByRole("heading", { name: "Submissions" }).waitFor(WAIT);
    const first = await listed(page);
    expect(first).toHaveLength(25);
    expect(await page.getByRole("link", { name: "Newer submissions" }).count()).toBe(0);

    // Older, older again, then back: each page new, the way back the same page.
    const pager = page.getByRole("navigation", { name: "Pages" });
    await pager.getByRole("link", { name: "Older submissions" }).click();
    await page.waitForURL(/cursor=/, WAIT);
    // The address changes as the navigation commits, a moment before React renders the new rows.
    await page.waitForFunction((old) => document.querySelector("tbody a")?.getAttribute("aria-label") !== old, first[0], WAIT);
    const second = await listed(page);
    expect(second).toHaveLength(25);
    expect(second.some((name) => first.includes(name))).toBe(false);
    expect(await pager.getByRole("link", { name: "Older submissions" }).getAttribute("rel")).toBe("next");
    expect(await pager.getByRole("link", { name: "Newer submissions" }).getAttribute("rel")).toBe("prev");
    await pager.getByRole("link", { name: "Newer submissions" }).click();
    await page.waitForFunction((expected) => document.querySelector("tbody a")?.getAttribute("aria-label") === expected, first[0]);
    expect(await listed(page)).toEqual(first);

    // One form's dead submissions: every row says so.
    await page.getByLabel("Form").first().selectOption("contact");
    await page.getByLabel("Status").selectOption("dead");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/status=dead/, WAIT);
    const dead = await listed(page);
    expect(dead.length).toBeGreaterThan(0);
    expect(await page.getByRole("row").filter({ hasText: "Contact us" }).filter({ hasText: "Dead" }).count()).toBe(dead.length);

    // A search in another case finds the folded name ("ÅNGSTRÖM" finds "Ångström").
    await page.goto(`${site.url}/admin/submissions`);
    await page.getByRole("searchbox", { name: "Search" }).fill("ÅNGSTRÖM");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/q=/, WAIT);
    const found = await listed(page);
    expect(found.length).toBeGreaterThan(0);
    expect(await page.getByRole("row").filter({ hasText: "Ångström" }).count()).toBe(found.length);
    // The newest are not indexed yet and more than a search reads by text: the page says so.
    await expect.poll(() => page.getByRole("status").filter({ hasText: NOTICE }).count()).toBe(1);

    // The cron indexes them (index-search, 500 a chunk): the same search, now without the notice.
    await site.tick();
    await page.reload();
    await page.getByRole("heading", { name: "Submissions" }).waitFor(WAIT);
    expect(await page.getByText(NOTICE).count()).toBe(0);
    const indexed = await listed(page);
    expect(indexed.length).toBeGreaterThanOrEqual(found.length);
    expect(await page.getByRole("row").filter({ hasText: "Ångström" }).count()).toBe(indexed.length);
    expect(errors).toEqual([]);
  });
});

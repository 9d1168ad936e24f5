import { mkdirSync, writeFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WAIT, patient, useBrowser } from "./browser-page";
import { watchErrors } from "./chromium";
import { copyWorkingTree, removeScratch, startInScratch, type ScratchStart } from "./scratch-start";

// A newcomer's first console form, timed: in a fresh copy of the tree (a clone's state: no forms, no
// D1 rows), `npm run start:offline`, then in Chromium sign in with the printed password, create a form,
// publish it, send it as a visitor, and see its verified delivery on the sink page (its Google Sheets
// row and Airtable record too), nothing set and no source read (ADR 066). Then a secret made in the
// console, and after a restart the same sink address,
// still verifying it. The times are written to tests/artifacts/newcomer-timing.json and printed; they
// depend on the machine, so no bound is asserted on them.

const STARTUP_MS = 240_000;
const FORM_ID = "lunch-poll";
const browser = useBrowser();

let scratch = "";
let started: ScratchStart;
let startMs = 0;
const times: Record<string, number> = {};

/** What npm start's ready block says: the site, the printed password and the sink page. */
async function readyBlock() {
  const site = (await started.waitForOutput(/Site +(http:\/\/\S+)/, 1_000))[1];
  const password = (await started.waitForOutput(/Local password +(\S+)/, 1_000))[1];
  const sinkPage = (await started.waitForOutput(/Sink page +(http:\/\/\S+)/, 1_000))[1];
  return { site, password, sinkPage };
}

async function signIn(page: Page, site: string, password: string) {
  await page.goto(`${site}/admin`);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Dashboard", level: 1 }).waitFor(WAIT);
}

/** Waits until the sink page lists `count` verified webhooks of the form (it reloads every 5 s; so do we). */
async function verifiedOnSinkPage(page: Page, sinkPage: string, count: number) {
  await page.goto(sinkPage);
  const verified = page
    .locator("article", { hasText: `(form ${FORM_ID})` })
    .filter({ hasText: "verified with the standardwebhooks library" });
  await expect
    .poll(async () => {
      await page.reload();
      return verified.count();
    }, WAIT)
    .toBe(count);
  expect(await page.locator("article", { hasText: "refused" }).count()).toBe(0);
}

/** Leaves the self-refreshing sink page so that its refresh cannot interrupt the next navigation. */
async function leaveSinkPage(page: Page) {
  await page.goto("about:blank");
}

beforeAll(async () => {
  scratch = copyWorkingTree("gatepost-newcomer-");
  startMs = Date.now();
  // Nothing set but what a test needs: no fill-time trap for a visitor as quick as a script.
  started = await startInScratch(scratch, { FORM_MIN_FILL_SECONDS: "0" }, STARTUP_MS);
  times.startSeconds = (Date.now() - startMs) / 1000;
}, STARTUP_MS + 60_000);

afterAll(async () => {
  await started?.stop();
  removeScratch(scratch);
  mkdirSync(new URL("../artifacts/", import.meta.url), { recursive: true });
  writeFileSync(new URL("../artifacts/newcomer-timing.json", import.meta.url), `${JSON.stringify(times, null, 2)}\n`);
  console.log(`[newcomer] ${JSON.stringify(times)}`);
}, 60_000);

describe("a newcomer's first console form", () => {
  it("reaches the local sink, verified, from start to sink page with nothing set", async () => {
    const { site, password, sinkPage } = await readyBlock();
    // The sink's address follows the site's port, so it is the same after every restart.
    expect(new URL(sinkPage).port).toBe(String(Number(new URL(site).port) + 1));
    const inApp = Date.now();
    const page = patient(await browser().newPage());
    const errors = watchErrors(page);

    await signIn(page, site, password);
    await page.getByRole("link", { name: "Forms" }).first().click();
    await page.getByLabel("Form id").fill(FORM_ID);
    await page.getByLabel("Title").fill("Lunch poll");
    await page.getByRole("button", { name: "Create a draft" }).click();
    await page.getByRole("heading", { name: "Lunch poll", level: 1 }).waitFor(WAIT);
    await page.getByRole("button", { name: "Publish" }).click();
    await page.getByText("Published as version 1.").waitFor(WAIT);

    const visitor = patient(await browser().newPage());
    await visitor.goto(`${site}/f/${FORM_ID}`);
    await visitor.getByLabel("Your name").fill("Grace Hopper");
    await visitor.getByLabel("E-mail address").fill("grace@example.org");
    await visitor.getByLabel("Message").fill("Soup, please, on Fridays.");
    await visitor.getByText("Check complete — you can send the form.").waitFor(WAIT);
    await visitor.getByRole("button", { name: "Send" }).click();
    await visitor.getByRole("heading", { name: "Received" }).waitFor(WAIT);

    await verifiedOnSinkPage(page, sinkPage, 1);
    times.inAppSeconds = (Date.now() - inApp) / 1000;
    times.totalSeconds = (Date.now() - startMs) / 1000;
    // Slack, Discord and the owner's e-mail are on the sink page too.
    for (const kind of ["slack", "discord", "email"]) {
      expect(
        await page
          .locator("article", { hasText: "Lunch poll" })
          .filter({ has: page.locator(".kind", { hasText: kind }) })
          .count(),
        kind,
      ).toBeGreaterThan(0);
    }
    // And its Google Sheets row and Airtable record, on the sink's stand-ins, with the submission's text.
    for (const kind of ["sheets", "airtable"]) {
      expect(
        await page
          .locator("article", { hasText: "Soup, please, on Fridays." })
          .filter({ has: page.locator(".kind", { hasText: kind }) })
          .count(),
        kind,
      ).toBeGreaterThan(0);
    }
    expect(errors).toEqual([]);
    await visitor.close();
    await page.close();
  }, 300_000);

  it(
    "verifies with a secret made in the console, after a restart too, at the same address",
    async () => {
      const first = await readyBlock();
      const page = patient(await browser().newPage());
      const sendTest = async (site: string) => {
        await page.goto(`${site}/admin/forms/${FORM_ID}/destinations`);
        await page.getByRole("button", { name: "Send a test to the webhook" }).click();
        await page.getByText("A test sent from the console, with sample values.").waitFor(WAIT);
      };
      await signIn(page, first.site, first.password);
      await page.goto(`${first.site}/admin/forms/${FORM_ID}/destinations`);
      await page.getByRole("button", { name: "Generate a secret" }).click();
      expect(await page.locator("code.secret").textContent()).toMatch(/^whsec_/);
      await sendTest(first.site);
      await verifiedOnSinkPage(page, first.sinkPage, 2);
      await leaveSinkPage(page);

      await started.stop();
      const restartMs = Date.now();
      const again = await startInScratch(scratch, { FORM_MIN_FILL_SECONDS: "0", PORT: new URL(first.site).port }, STARTUP_MS);
      started = again;
      times.restartSeconds = (Date.now() - restartMs) / 1000;
      const second = await readyBlock();
      expect(second.sinkPage).toBe(first.sinkPage);
      // A new start signs every session out (a fresh SESSION_SECRET and password).
      await signIn(page, second.site, second.password);
      await sendTest(second.site);
      await verifiedOnSinkPage(page, second.sinkPage, 1);
      await page.close();
    },
    STARTUP_MS + 180_000,
  );
});

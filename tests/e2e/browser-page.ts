import { mkdirSync } from "node:fs";
import { AxeBuilder } from "@axe-core/playwright";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, inject } from "vitest";
import { launchBrowser, watchErrors } from "./chromium";
import { resetStandin } from "./standin";

/**
 * How long a test waits for anything: generous, because the machine running the suite may be busy.
 * The minute-long stalls this once covered were wrangler's dev proxy parking a request
 * (ADR 008, now a patch-package patch: ADR 021), not slowness.
 */
export const WAIT = { timeout: 60_000 };

/** Gives a page WAIT's patience for navigations and every action. Returns the page. */
export function patient(page: Page): Page {
  page.setDefaultNavigationTimeout(WAIT.timeout);
  page.setDefaultTimeout(WAIT.timeout);
  return page;
}

/**
 * One Chromium per test file and a fresh page per test, with the stand-in reset and console errors
 * collected. `onPage` receives each new page (and may register more listeners before it is used).
 */
export function useBrowserPage(onPage: (page: Page, errors: string[], browser: Browser) => void | Promise<void>) {
  const browser = useBrowser();
  let page: Page | undefined;
  beforeEach(async () => {
    await resetStandin();
    page = patient(await browser().newPage());
    await onPage(page, watchErrors(page), browser());
  });
  afterEach(async () => {
    await page?.close();
  });
}

/** The phone every 390 px check uses. */
export const PHONE = { width: 390, height: 844 };

/** Where screenshots go (tests/artifacts/screenshots/, kept by CI), made on first use. */
export function screenshotsDir(): URL {
  const dir = new URL("../artifacts/screenshots/", import.meta.url);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * One Chromium per test file, for tests that open their own contexts (phones, downloads), with the
 * stand-in reset once. Returns the browser's getter, valid inside tests.
 */
export function useBrowser(): () => Browser {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser(inject("chromiumPath"));
    await resetStandin();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => browser;
}

/** A fresh context the size of PHONE (mobile, touch) with one patient page and its errors collected; close the context. */
export async function phonePage(browser: Browser, options: BrowserContextOptions = {}) {
  const context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true, deviceScaleFactor: 1, ...options });
  const page = patient(await context.newPage());
  return { context, page, errors: watchErrors(page) };
}

/** axe-core's violations on the current page, as "rule: targets" lines (empty when clean). */
export async function axeViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** The page's full width in CSS pixels: above the viewport's means it scrolls sideways. */
export async function pageWidth(page: Page): Promise<number> {
  return page.evaluate(() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth));
}

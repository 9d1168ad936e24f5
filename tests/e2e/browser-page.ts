import { AxeBuilder } from "@axe-core/playwright";
import type { Browser, Page } from "playwright-core";
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
  let browser: Browser;
  let page: Page | undefined;
  beforeAll(async () => {
    browser = await launchBrowser(inject("chromiumPath"));
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    await resetStandin();
    page = patient(await browser.newPage());
    await onPage(page, watchErrors(page), browser);
  });
  afterEach(async () => {
    await page?.close();
  });
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

import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, inject } from "vitest";
import { launchBrowser, watchErrors } from "./chromium";
import { resetStandin } from "./standin";

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
    page = await browser.newPage();
    // wrangler pages dev on a shared two-core machine can take a while to answer a first navigation.
    page.setDefaultNavigationTimeout(60_000);
    await onPage(page, watchErrors(page), browser);
  });
  afterEach(async () => {
    await page?.close();
  });
}

import type { Page } from "playwright-core";
import { describe, expect, it, inject } from "vitest";
import { CATALOGUES } from "~/lib/i18n/catalogue.server";
import type { Lang } from "~/lib/text/languages";
import { CONTACT_TRANSLATIONS } from "~/forms/translations/contact";
import { PHONE, WAIT, axeViolations, pageWidth, phonePage, useBrowser } from "./browser-page";

// The contact form on a 390 px phone whose browser speaks German, Japanese or Arabic: the page, the
// captcha widget and every word around the owner's texts in that language (Arabic right to left), axe
// finds nothing on the form, on its refused post or on its thank-you page, and nothing scrolls sideways.

const browser = useBrowser();

const PHONE_LOCALES: Record<Exclude<Lang, "en">, string> = {
  de: "de-DE",
  fr: "fr-FR",
  es: "es-ES",
  it: "it-IT",
  pt: "pt-PT",
  nl: "nl-NL",
  pl: "pl-PL",
  ja: "ja-JP",
  ar: "ar-EG",
};

async function expectClean(page: Page) {
  expect(await axeViolations(page)).toEqual([]);
  expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
}

describe.each(["de", "ja", "ar"] as const)("the contact form in %s on a phone", (lang) => {
  const t = CATALOGUES[lang];
  const own = CONTACT_TRANSLATIONS[lang];

  it("speaks the browser's language, has no axe violations, and thanks in it", async () => {
    const { context, page, errors } = await phonePage(browser(), { locale: PHONE_LOCALES[lang] });
    try {
      await page.goto(`${inject("baseUrl")}/f/contact`);
      await page.getByText(t.page.captcha.ready).waitFor(WAIT);
      expect(await page.locator("html").getAttribute("lang")).toBe(lang);
      expect(await page.locator("html").getAttribute("dir")).toBe(lang === "ar" ? "rtl" : "ltr");
      await page.getByRole("heading", { level: 1, name: own.title }).waitFor(WAIT);
      // The widget was asked to speak the page's language.
      expect(await page.locator("[data-standin-widget]").getAttribute("data-language")).toBe(lang);
      await expectClean(page);

      // A refused post: the summary and each field's error in the language, around the labels shown.
      const labels = own.fields!;
      await page.getByLabel(labels.email!.label!).fill("not-an-email");
      await page.getByRole("button", { name: t.page.send }).click();
      await page.getByRole("alert").getByText(t.page.summaryProblem).waitFor(WAIT);
      expect(await page.locator('[aria-invalid="true"]').count()).toBeGreaterThanOrEqual(2);
      await page.getByText(t.page.captcha.ready).waitFor(WAIT);
      await expectClean(page);

      await page.getByLabel(labels.name!.label!).fill("Grace Hopper");
      await page.getByLabel(labels.email!.label!).fill("grace@example.org");
      await page.getByLabel(labels.message!.label!).fill("Checking every language, at length.");
      await page.getByRole("button", { name: t.page.send }).click();
      await page.getByRole("heading", { level: 1, name: t.thanks.title }).waitFor(WAIT);
      await page.getByText(own.successMessage!).waitFor(WAIT);
      await expectClean(page);
      // Chromium logs the refused post's 422 itself; nothing else may have failed.
      expect(errors.filter((e) => !e.includes("status of 422"))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe("a language asked for in the address", () => {
  it("wins over the browser's, and the page carries no other language's texts", async () => {
    const { context, page } = await phonePage(browser(), { locale: "de-DE" });
    try {
      await page.goto(`${inject("baseUrl")}/f/newsletter?lang=pl`);
      await page.getByText(CATALOGUES.pl.page.captcha.ready).waitFor(WAIT);
      const html = await page.content();
      for (const [lang, locale] of Object.entries(PHONE_LOCALES)) {
        if (lang !== "pl") expect(html, locale).not.toContain(CATALOGUES[lang as Lang].page.captcha.ready);
      }
      expect(html).not.toContain(CATALOGUES.en.page.captcha.ready);
    } finally {
      await context.close();
    }
  });
});

import { describe, expect, it, inject } from "vitest";
import { WAIT, axeViolations, patient, phonePage, useBrowser } from "./browser-page";

// Issue #55 in Chromium: the apply form asks a portfolio of designers only and comes in two steps.
// With JavaScript: one step at a time, the portfolio revealed and announced politely, each step
// checked before the next, focus on the step's heading, the captcha on the last step only. Without
// it: one page with every field, and the server decides what applies.

const browser = useBrowser();
/** A small PDF, as its first bytes go. */
const PDF = Buffer.from("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");

describe("the apply form with JavaScript", () => {
  it("reveals the portfolio for designers, checks each step, moves focus, and sends from the last step", async () => {
    const { context, page, errors } = await phonePage(browser());
    await page.goto(`${inject("baseUrl")}/f/apply`);
    await page.getByRole("heading", { name: "About you" }).waitFor(WAIT);
    await page.getByText("Step 1 of 2").waitFor(WAIT);
    const portfolio = page.getByLabel("Link to your portfolio");
    expect(await portfolio.isVisible()).toBe(false);
    expect(await page.getByRole("heading", { name: "Your CV" }).isVisible()).toBe(false);
    // The captcha and Send wait for the last step.
    expect(await page.getByRole("button", { name: "Send" }).isVisible()).toBe(false);
    expect(await page.locator(".captcha").count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);

    await page.getByLabel("The role").selectOption("designer");
    await portfolio.waitFor({ state: "visible", ...WAIT });
    // It shows inside a polite live region that was there before, so screen readers read it out.
    expect(await page.locator("[aria-live=polite]", { has: portfolio }).count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);

    // Next checks the step first: nothing moves while a required answer is missing.
    await page.getByLabel("Your name").fill("Ada Lovelace");
    await page.getByLabel("E-mail address").fill("ada@example.org");
    await page.getByRole("button", { name: "Next" }).click();
    expect(await page.getByRole("heading", { name: "About you" }).isVisible()).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("field-portfolio");

    // Another role: the portfolio goes again, disabled, so it is neither checked nor sent.
    await page.getByLabel("The role").selectOption("developer");
    await portfolio.waitFor({ state: "hidden", ...WAIT });
    await page.getByRole("button", { name: "Next" }).click();
    const cvHeading = page.getByRole("heading", { name: "Your CV" });
    await cvHeading.waitFor({ state: "visible", ...WAIT });
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent), WAIT).toBe("Your CV");
    await page.getByText("Step 2 of 2").waitFor(WAIT);
    await page.getByText("Check complete — you can send the form.").waitFor(WAIT);
    expect(await axeViolations(page)).toEqual([]);

    // Back keeps the answers.
    await page.getByRole("button", { name: "Back" }).click();
    await page.getByRole("heading", { name: "About you" }).waitFor({ state: "visible", ...WAIT });
    expect(await page.getByLabel("Your name").inputValue()).toBe("Ada Lovelace");
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByText("Check complete — you can send the form.").waitFor(WAIT);
    await page.getByLabel("Your CV").setInputFiles({ name: "cv.pdf", mimeType: "application/pdf", buffer: PDF });
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("heading", { name: "Received" }).waitFor(WAIT);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("the apply form without JavaScript", () => {
  it("is one page with every field and step, and the server asks the portfolio of designers only", async () => {
    const context = await browser().newContext({ javaScriptEnabled: false });
    const page = patient(await context.newPage());
    try {
      await page.goto(`${inject("baseUrl")}/f/apply`);
      for (const heading of ["About you", "Your CV"]) expect(await page.getByRole("heading", { name: heading }).isVisible()).toBe(true);
      expect(await page.getByLabel("Link to your portfolio").isVisible()).toBe(true);
      expect(await page.getByRole("button", { name: "Next" }).isVisible()).toBe(false);
      await page.getByLabel("Your name").fill("Ada Lovelace");
      await page.getByLabel("E-mail address").fill("ada@example.org");
      await page.getByLabel("The role").selectOption("designer");
      await page.getByRole("button", { name: "Send" }).click();
      await page.getByRole("alert").getByRole("link", { name: "Link to your portfolio is required." }).waitFor(WAIT);

      // Not a designer: whatever is in the portfolio field is not checked (and never kept).
      await page.getByLabel("The role").selectOption("developer");
      await page.getByLabel("Link to your portfolio").fill("not a link");
      await page.getByRole("button", { name: "Send" }).click();
      await page.getByRole("alert").waitFor(WAIT);
      expect(
        await page
          .getByRole("alert")
          .getByRole("link", { name: /portfolio/ })
          .count(),
      ).toBe(0);
    } finally {
      await context.close();
    }
  });
});

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { describe, expect, it, inject } from "vitest";
import { WAIT, useBrowserPage } from "./browser-page";

// axe-core (pinned in package.json) on every page, in Chromium, with the page's own CSP in force.
// axe is evaluated through the DevTools protocol rather than a <script> tag, which the CSP would block.

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const AXE_PINNED = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { devDependencies: Record<string, string> }
).devDependencies["axe-core"];

let page: Page;
useBrowserPage((p) => {
  page = p;
});

interface AxeSummary {
  version: string;
  passes: number;
  violations: Array<{ id: string; impact: string | null; nodes: string[] }>;
}

async function runAxe(): Promise<AxeSummary> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document) => Promise<any>; version: string } }).axe;
    const result = await axe.run(document);
    return {
      version: axe.version,
      passes: result.passes.length,
      violations: result.violations.map((v: any) => ({
        id: v.id,
        impact: v.impact,
        nodes: v.nodes.map((n: any) => `${n.target.join(" ")}: ${n.failureSummary}`),
      })),
    };
  });
}

async function expectNoViolations() {
  const result = await runAxe();
  expect(result.version).toBe(AXE_PINNED);
  // A run that checked nothing would also have no violations.
  expect(result.passes).toBeGreaterThan(10);
  expect(result.violations).toEqual([]);
}

async function openContactReady() {
  await page.goto(`${inject("baseUrl")}/f/contact`);
  await page.getByText("Check complete — you can send the form.").waitFor(WAIT);
}

describe("axe-core finds no violations", () => {
  it("on the landing page", async () => {
    await page.goto(`${inject("baseUrl")}/`);
    await page.getByRole("heading", { name: "Gatepost", level: 1 }).waitFor(WAIT);
    await expectNoViolations();
  });

  it("on the contact form with its captcha ready", async () => {
    await openContactReady();
    await expectNoViolations();
  });

  it("on the contact form showing field errors", async () => {
    await openContactReady();
    await page.getByLabel("E-mail address").fill("not-an-email");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("alert").getByText("There is a problem").waitFor(WAIT);
    expect(await page.locator('[aria-invalid="true"]').count()).toBeGreaterThanOrEqual(2);
    await expectNoViolations();
  });

  it("on the thank-you view", async () => {
    await openContactReady();
    await page.getByLabel("Your name").fill("Grace Hopper");
    await page.getByLabel("E-mail address").fill("grace@example.org");
    await page.getByLabel("Message").fill("Checking accessibility.");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("heading", { name: "Received" }).waitFor(WAIT);
    await page.reload();
    await page.getByRole("heading", { name: "Received" }).waitFor(WAIT);
    await expectNoViolations();
  });

  it("on the operator sign-in page", async () => {
    await page.goto(`${inject("baseUrl")}/admin/login`);
    await page.getByRole("heading", { name: "Operator sign-in" }).waitFor(WAIT);
    await expectNoViolations();
  });

  it("on the 404 page", async () => {
    await page.goto(`${inject("baseUrl")}/no/such/page`);
    await page.getByRole("heading", { name: "Page not found" }).waitFor(WAIT);
    await expectNoViolations();
  });
});

import type { Page, Route } from "playwright-core";
import { describe, expect, it, inject } from "vitest";
import { WAIT, useBrowserPage } from "./browser-page";

// Lazy route discovery (v3_lazyRouteDiscovery) adds routes to the browser's route tree in place: the
// case the router patch keeps its cache of ranked branches out of (ADR 023). The page at / lists only
// the root and index routes in its manifest; a Link click then goes to a form, whose route the
// navigation itself must discover (the page's eager discovery of its links is held until after the
// click), and the form renders without a document load.

let page: Page;
let errors: string[];
useBrowserPage((p, e) => {
  [page, errors] = [p, e];
});

const manifestRouteIds = () => page.evaluate(() => Object.keys((window as any).__remixManifest.routes).sort());

describe("a client navigation to a route not discovered yet", () => {
  it("discovers the form's route on a Link click from / and renders it without reloading", async () => {
    const baseUrl = inject("baseUrl");
    const held: Route[] = [];
    const asked: string[][] = [];
    let clicked = false;
    await page.route(/\/__manifest\?/, (route) => {
      asked.push(new URL(route.request().url()).searchParams.getAll("p"));
      if (clicked) return route.continue();
      held.push(route);
    });
    const documents: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "document") documents.push(request.url());
    });

    await page.goto(baseUrl);
    // Eager discovery asks once the app has hydrated, so from here a click is a client navigation.
    await expect.poll(() => held.length, WAIT).toBeGreaterThan(0);
    expect(await manifestRouteIds()).toEqual(["root", "routes/_index"]);
    await page.evaluate(() => Object.assign(window, { gatepostSamePage: true }));

    clicked = true;
    await page.getByRole("link", { name: /^Contact us/ }).click();
    await page.getByRole("heading", { name: "Contact us", level: 1 }).waitFor(WAIT);
    await page.getByLabel("Your name").waitFor(WAIT);

    expect(page.url()).toBe(`${baseUrl}/f/contact`);
    expect(await page.evaluate(() => (window as any).gatepostSamePage)).toBe(true);
    expect(documents).toEqual([`${baseUrl}/`]);
    expect(asked).toContainEqual(["/f/contact"]);
    expect(await manifestRouteIds()).toContain("routes/f.$formId");

    // The held eager discovery is let through and answered too, before the page closes.
    const answered = held.map((route) => page.waitForResponse((response) => response.request() === route.request(), WAIT));
    for (const route of held) await route.continue();
    expect((await Promise.all(answered)).map((response) => response.status())).toEqual(held.map(() => 200));
    expect(errors, errors.join("\n")).toEqual([]);
  });
});

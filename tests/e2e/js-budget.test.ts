import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error - plain ESM shared with npm run bench
import { BASELINE_CLIENT, buildBaseline } from "../../bench/build-baseline.mjs";
// @ts-expect-error - plain ESM shared with npm run bench
import { measureAllPages, measureRouteJs } from "../../bench/js-bytes.mjs";

// The JS budget, from the build manifests (never a timer): every page ships at most the bare Remix
// app's JS plus 10 KiB gzip. This lives in the e2e layer because that layer runs after `npm run build`.

const CLIENT = path.resolve(__dirname, "../../build/client");
const BUDGET_EXTRA_GZIP = 10 * 1024;
// Markers of the Turnstile loader and widget: only form pages may load a chunk holding one. (The field
// name "cf-turnstile-response" is not one: form definitions reserve it, and the console's pages,
// which show fields by their labels, load the definitions.)
const TURNSTILE_MARKERS = ["__gatepostTurnstileLoaded", "turnstile/v0/api.js", "turnstile.render"];
// The sign-in page renders the same widget when the site-wide sign-in budget asks for a check
// (docs/decisions/027), fetching it with import() only then; its chunk counts against the page here.
const FORM_ROUTES = ["routes/f.$formId", "routes/admin_.login"];

interface PageJs {
  routeId: string;
  files: string[];
  raw: number;
  gzip: number;
  manifest: { raw: number; gzip: number };
}

let baseline: PageJs;
let pages: PageJs[];

beforeAll(() => {
  buildBaseline();
  baseline = measureRouteJs(BASELINE_CLIENT, "routes/_index");
  pages = measureAllPages(CLIENT);
}, 120_000);

function loadsTurnstile(page: PageJs): boolean {
  return page.files.some((url) => {
    const text = readFileSync(path.join(CLIENT, url), "utf8");
    return TURNSTILE_MARKERS.some((marker) => text.includes(marker));
  });
}

describe("JS budget", () => {
  it("measures the manifest each page gets inline, as lazy route discovery serves it (ADR 117)", () => {
    for (const config of ["../../vite.config.ts", "../../bench/baseline/vite.config.ts"]) {
      expect(readFileSync(path.resolve(__dirname, config), "utf8"), config).toMatch(/v3_lazyRouteDiscovery: true/);
    }
    const form = pages.find((page) => page.routeId === "routes/f.$formId")!;
    // The routes of /f/:formId and its parents only, far less than every route's entry.
    expect(form.manifest.gzip).toBeLessThan(1024);
  });

  it("measures a real baseline", () => {
    // A bare Remix + React client is well over 50 KiB gzip; less means the measurement broke.
    expect(baseline.gzip).toBeGreaterThan(50 * 1024);
    expect(baseline.files.length).toBeGreaterThanOrEqual(4);
    // The bare app is a subset of every page here: more JS means it was built differently (React's
    // development build), which would make the budget below meaningless.
    expect(baseline.gzip).toBeLessThan(Math.min(...pages.map((page) => page.gzip)));
  });

  it("keeps every page within the bare app's JS + 10 KiB gzip", () => {
    expect(pages.length).toBeGreaterThanOrEqual(4);
    const limit = baseline.gzip + BUDGET_EXTRA_GZIP;
    const over = pages.filter((page) => page.gzip > limit).map((p) => `${p.routeId}: ${p.gzip} B gzip > ${limit} B`);
    expect(over).toEqual([]);
  });

  it("loads the Turnstile script and widget only on pages with a form or a check", () => {
    for (const page of pages) {
      expect([page.routeId, loadsTurnstile(page)]).toEqual([page.routeId, FORM_ROUTES.includes(page.routeId)]);
    }
  });
});

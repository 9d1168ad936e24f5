import { describe, expect, it } from "vitest";
import { serverBuild } from "../../functions/server-build";
import { appFetch } from "./helpers";

// Remix 2.17.5 pins turbo-stream 2.4.1, which its maintainers will not update (remix-run/remix#11604).
// Every turbo-stream path in 2.17.5 runs only with `future.v3_singleFetch`, so single fetch stays off
// (ADR 106); this is the Worker's side of that: the build it serves, the page it renders, the URL shape
// single fetch answers. tests/unit/single-fetch-off.test.ts keeps turbo-stream out of the sources.
const ADVISORIES = "turbo-stream 2.4.1: CVE-2026-34077 / GHSA-rxv8-25v2-qmq8, CVE-2026-42211 / GHSA-49rj-9fvp-4h2h (ADR 106)";

describe("single fetch stays off (ADR 106)", () => {
  it("the server build's future flags leave v3_singleFetch off", () => {
    expect(serverBuild.future.v3_singleFetch, ADVISORIES).toBe(false);
  });

  it("a page tells the browser single fetch is off", async () => {
    const html = await (await appFetch(new Request("http://localhost/f/contact"))).text();
    const future = /"future":(\{[^}]*\})/.exec(html)?.[1];
    expect(future, "the page's __remixContext").toBeDefined();
    expect((JSON.parse(future!) as Record<string, boolean>).v3_singleFetch, ADVISORIES).toBe(false);
  });

  it("a single-fetch data URL is not answered with a turbo-stream", async () => {
    for (const url of ["http://localhost/f/contact.data", "http://localhost/_root.data"]) {
      const response = await appFetch(new Request(url));
      expect([url, response.headers.get("content-type")], ADVISORIES).not.toEqual([url, expect.stringContaining("text/x-script")]);
      expect(response.headers.has("x-remix-response"), ADVISORIES).toBe(false);
    }
  });
});

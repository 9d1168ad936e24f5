import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { standinToken } from "../../dev/standin-token";
import { launchBrowser, watchErrors } from "./chromium";
import { WAIT, patient } from "./browser-page";
import { startOwnSite, type OwnSite, type Sink } from "./own-site";

// A failing receiver in the browser (docs/decisions/071): ten submissions whose first attempts all get a
// 500 pause the webhook; the form's Destinations page shows it paused with the last error, an admin
// resumes it there, and the next cron run delivers what waited. Its own server and sink, so the pause
// does not touch the other e2e files' contact form.

const PASSWORD = "delivery pause e2e password 0123";

let browser: Browser;
let site: OwnSite;
let sink: Sink;

beforeAll(async () => {
  const secret = `whsec_${Buffer.from("delivery-pause-e2e-secret-012345").toString("base64")}`;
  site = await startOwnSite("pause", { password: PASSWORD, secret, bindings: () => ({ FORM_RATE_LIMIT_PER_MINUTE: "1000" }) });
  sink = site.sink;
  browser = await launchBrowser(inject("chromiumPath"));
});

afterAll(async () => {
  await browser?.close();
  await site?.stop();
});

describe("a paused destination in the console", () => {
  it("shows the webhook paused with its last error after ten failures; an admin resumes it and what waited is delivered", async () => {
    await sink.setMode("http500");
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${site.url}/api/forms/contact/submissions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          name: "Ada",
          email: "ada@example.org",
          message: `While the receiver fails, number ${i}.`,
          "cf-turnstile-response": standinToken({ hostname: "127.0.0.1" }),
        }),
      });
      expect(res.status).toBe(201);
    }
    // Each first attempt runs after its answer: wait until the sink has refused all ten.
    for (let i = 0; i < 60 && sink.snapshot().requests.length < 10; i++) await new Promise((r) => setTimeout(r, 250));
    expect(sink.snapshot().requests).toHaveLength(10);
    await sink.setMode("normal");

    const page = patient(await browser.newPage());
    const errors = watchErrors(page);
    await page.goto(`${site.url}/admin/forms/contact/destinations`);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    // The first attempts ran after each answer; the page shows the pause once the tenth has failed.
    for (let i = 0; i < 20 && !(await page.getByText("webhook: paused").isVisible()); i++) {
      await new Promise((r) => setTimeout(r, 500));
      await page.reload();
    }
    const failing = page.getByRole("region", { name: "Failing destinations" });
    await failing.getByText("webhook: paused").waitFor(WAIT);
    await failing.getByText("Last error: HTTP 500").waitFor(WAIT);
    await failing.getByRole("button", { name: "Resume deliveries to webhook" }).click();
    await page.getByText("Deliveries to webhook resumed").waitFor(WAIT);
    await page.getByText("webhook: paused").waitFor({ ...WAIT, state: "hidden" });

    // The retries fall due within about 12 s of each failure; the cron sends them.
    for (let i = 0; i < 30 && sink.snapshot().unique.length < 10; i++) {
      await site.tick();
      await new Promise((r) => setTimeout(r, 1_000));
    }
    const seen = sink.snapshot() as { unique: Array<{ duplicates: number }>; requests: Array<{ outcome: string }> };
    expect(seen.unique).toHaveLength(10);
    expect(seen.requests.filter((r) => r.outcome === "accepted")).toHaveLength(10);
    expect(errors).toEqual([]);
  });
});

import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
// @ts-expect-error - plain ESM helpers shared with npm start
import { applyLocalMigrations, startWorkerDev } from "../../scripts/worker-dev.mjs";
// @ts-expect-error - plain ESM helper
import { freePort } from "../../scripts/process-group.mjs";
// @ts-expect-error - plain ESM helper shared with npm run admin:hash-password
import { hashPassword } from "../../scripts/hash-password.mjs";
// @ts-expect-error - the local sink npm start runs
import { startLocalSink } from "../support/webhook-sink.mjs";
import { standinToken } from "../support/standin-token";
import { launchBrowser, watchErrors } from "./chromium";
import { WAIT, patient } from "./browser-page";

// A failing receiver in the browser (docs/decisions/071): ten submissions whose first attempts all get a
// 500 pause the webhook; the form's Destinations page shows it paused with the last error, an admin
// resumes it there, and the next cron run delivers what waited. Its own server and sink, so the pause
// does not touch the other e2e files' contact form.

const PASSWORD = "delivery pause e2e password 0123";
const ROOT = path.resolve(__dirname, "../..");
const persistTo = path.join(ROOT, ".wrangler", `e2e-pause-${process.pid}`);

let browser: Browser;
let sink: Awaited<ReturnType<typeof startLocalSink>>;
let site: { url: string; tick: () => Promise<void>; stop: () => Promise<void> };

beforeAll(async () => {
  rmSync(persistTo, { recursive: true, force: true });
  mkdirSync(persistTo, { recursive: true });
  applyLocalMigrations({ persistTo });
  const secret = `whsec_${Buffer.from("delivery-pause-e2e-secret-012345").toString("base64")}`;
  sink = await startLocalSink({ secret });
  const port = await freePort();
  site = await startWorkerDev({
    port,
    persistTo,
    bindings: {
      TURNSTILE_SITE_KEY: "1x00000000000000000000AA",
      TURNSTILE_SECRET_KEY: "1x0000000000000000000000000000000AA",
      TURNSTILE_VERIFY_URL: `${inject("standinOrigin")}/turnstile/v0/siteverify`,
      TURNSTILE_SCRIPT_URL: `${inject("standinOrigin")}/turnstile/v0/api.js`,
      FORM_SIGNING_SECRET: "e2e-pause-form-signing-secret-0123456789",
      FORM_RATE_LIMIT_PER_MINUTE: "1000",
      ADMIN_PASSWORD_HASH: await hashPassword(PASSWORD),
      SESSION_SECRET: "e2e-pause-session-secret-0123456789abcdef01234",
      ALLOW_LOOPBACK_WEBHOOKS: "true",
      CONTACT_WEBHOOK_URL: sink.webhookUrl,
      CONTACT_WEBHOOK_SECRET: secret,
    },
  });
  browser = await launchBrowser(inject("chromiumPath"));
});

afterAll(async () => {
  await browser?.close();
  await site?.stop();
  await sink?.close();
  rmSync(persistTo, { recursive: true, force: true });
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

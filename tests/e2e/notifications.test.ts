import { mkdirSync } from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchBrowser, watchErrors } from "./chromium";
import { WAIT, patient } from "./browser-page";
import { startOwnSite, type OwnSite, type Sink } from "./own-site";

// Notifications end to end, as `npm start` runs them: the Worker (with wrangler's simulated send_email
// binding) on a local D1, the local sink standing in for the webhook receiver, Slack, Discord and the
// inbox. A message sent in Chromium reaches all four right after the answer; the operator sees each
// kind's attempts in the timeline, and redelivering sends the e-mail again. Its own server, so the
// contact form's extra destinations do not change what the other e-mail-less e2e files see.

const PASSWORD = "notifications e2e password 0123";

let browser: Browser;
let sink: Sink;
let site: OwnSite;

interface Message {
  kind: string;
  title: string;
  text: string;
  reference: string | null;
  headers?: Array<[string, string]>;
}
const messages = (): Message[] => sink.snapshot().messages;

beforeAll(async () => {
  const secret = `whsec_${Buffer.from("notifications-e2e-secret-0123456").toString("base64")}`;
  site = await startOwnSite("notify", {
    password: PASSWORD,
    secret,
    bindings: (own, port) => ({
      FORM_MIN_FILL_SECONDS: "0",
      EMAIL_FROM: "gatepost@localhost",
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      CONTACT_EMAIL_TO: "owner@localhost",
      CONTACT_SLACK_WEBHOOK_URL: own.slackUrl,
      CONTACT_DISCORD_WEBHOOK_URL: own.discordUrl,
    }),
    onEmail: (raw, own) => own.captureEmail(raw),
  });
  sink = site.sink;
  browser = await launchBrowser(inject("chromiumPath"));
});

afterAll(async () => {
  await browser?.close();
  await site?.stop();
});

describe("notifications from the browser to every kind of destination", () => {
  it("shows each kind's attempts in the admin timeline, and redelivers an e-mail", async () => {
    const visitor = patient(await browser.newPage());
    const visitorErrors = watchErrors(visitor);
    await visitor.goto(`${site.url}/f/contact`);
    await visitor.getByLabel("Your name").fill("Mary <!channel> Jackson");
    await visitor.getByLabel("E-mail address").fill("mary@example.org");
    await visitor.getByLabel("Message").fill("Wind tunnel results attached in spirit. @everyone <b>bold</b>");
    await visitor.getByText("Check complete — you can send the form.").waitFor(WAIT);
    await visitor.getByRole("button", { name: "Send" }).click();
    await visitor.getByRole("heading", { name: "Received" }).waitFor(WAIT);
    const reference = (await visitor.locator(".reference").textContent()) ?? "";
    expect(reference).toMatch(/^[0-9a-f-]{36}$/);
    expect(visitorErrors).toEqual([]);
    await visitor.close();

    // Every kind arrives right after the answer, the e-mail too, with no cron run in between.
    await expect
      .poll(
        () =>
          messages()
            .filter((m) => m.reference === reference || m.kind === "email")
            .map((m) => m.kind)
            .sort(),
        WAIT,
      )
      .toEqual(["discord", "email", "slack"]);
    const emails = () => messages().filter((m) => m.kind === "email").length;
    const [email] = messages().filter((m) => m.kind === "email");
    expect(email.title).toBe("New submission: Contact us");
    expect(email.headers).toContainEqual(["Reply-To", "<mary@example.org>"]);
    expect(email.text).toContain("Mary <!channel> Jackson");
    expect(email.text).toContain(`Reference: ${reference}`);
    // Slack shows the name literally: it travels in a plain_text object, which Slack never parses for
    // mentions, links or formatting, so it is text, not a broadcast.
    const slack = messages().find((m) => m.kind === "slack")! as Message & {
      payload: { blocks: Array<{ text?: { type: string; text: string } }> };
    };
    expect(slack.text).toContain("Mary <!channel> Jackson");
    const holding = slack.payload.blocks.filter((b) => b.text?.text.includes("<!channel>"));
    expect(holding.map((b) => b.text?.type)).toEqual(["plain_text"]);

    // The sink's page shows them as a person reads them.
    const sinkPage = patient(await browser.newPage());
    await sinkPage.goto(sink.pageUrl);
    await sinkPage.getByRole("heading", { name: "email New submission: Contact us" }).waitFor(WAIT);
    expect(await sinkPage.getByRole("heading", { name: /^slack New submission/ }).count()).toBe(1);
    await sinkPage.close();

    const page = patient(await browser.newPage());
    const errors = watchErrors(page);
    await page.goto(`${site.url}/admin/login`);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Dashboard" }).waitFor(WAIT);
    await page.goto(`${site.url}/admin/submissions/${reference}`);
    await page.getByRole("heading", { name: "Delivery timeline" }).waitFor(WAIT);
    for (const kind of ["webhook", "email", "slack", "discord"]) {
      const region = page.getByRole("region", { name: `Delivery to ${kind}` });
      await region.getByText("1 attempt logged").waitFor(WAIT);
      expect(await region.getByText("Delivered", { exact: true }).count()).toBeGreaterThan(0);
    }
    await page.getByRole("region", { name: "Delivery to email" }).getByRole("cell", { name: "sent to 1 recipient" }).waitFor(WAIT);

    await page.getByRole("button", { name: "Redeliver" }).click();
    await page.getByText("Queued 4 deliveries again.").waitFor(WAIT);
    // Redelivered at once, after the console's answer; a cron run finds nothing left to send.
    await expect.poll(emails, WAIT).toBe(2);
    await page.waitForLoadState("networkidle");
    await site.tick();
    expect(emails()).toBe(2);
    const emailRegion = page.getByRole("region", { name: "Delivery to email" });
    await expect
      .poll(async () => {
        await page.reload();
        return emailRegion.getByRole("cell", { name: "sent to 1 recipient" }).count();
      }, WAIT)
      .toBe(2);
    const artifacts = new URL("../artifacts/", import.meta.url);
    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: new URL("notifications-timeline.png", artifacts).pathname, fullPage: true });
    expect(errors).toEqual([]);
  });
});

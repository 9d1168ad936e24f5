import { mkdirSync } from "node:fs";
import type { Browser } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
// @ts-expect-error - plain ESM test support shared with npm start
import { startWebhookSink } from "../../dev/local-sink.mjs";
import { launchBrowser } from "./chromium";
import { WAIT, pageWidth, phonePage } from "./browser-page";

// The local sink's page, as `npm start` prints its address: every kind Gatepost sends (a signed
// webhook, an e-mail, a Slack and a Discord message) listed for a person, readable on a 390 px phone
// without scrolling sideways, long unbroken values included.

const SECRET = `whsec_${Buffer.from("sink-page-e2e-secret-0123456789ab").toString("base64")}`;
const REFERENCE = "7f0c4a52-9d7e-4f4b-8a53-2f1f6d1f0c11";
const LONG = `https://example.org/${"a-very-long-unbroken-path-segment".repeat(6)}`;

let browser: Browser;
let sink: Awaited<ReturnType<typeof startWebhookSink>>;

beforeAll(async () => {
  browser = await launchBrowser(inject("chromiumPath"));
  sink = await startWebhookSink({ secret: SECRET });
});

afterAll(async () => {
  await sink?.close();
  await browser?.close();
});

/** An e-mail as Gatepost's mimetext writes it: multipart/alternative with base64 parts. */
function email(): string {
  const text = Buffer.from(`New submission to "Contact us"\n\nMessage:\n${LONG}\n\nReference: ${REFERENCE}\n`).toString("base64");
  return [
    "From: Contact us (Gatepost) <forms@example.org>",
    "To: <owner@example.org>",
    "Subject: New submission: Contact us",
    'Content-Type: multipart/alternative; boundary="b1"',
    "",
    "--b1",
    "Content-Type: text/plain; charset=UTF-8",
    "Content-Transfer-Encoding: base64",
    "",
    text,
    "--b1--",
    "",
  ].join("\r\n");
}

describe("the local sink's page", () => {
  it("lists a webhook, an e-mail, a Slack and a Discord message, and fits a 390 px phone", async () => {
    const body = JSON.stringify({
      type: "submission.created",
      form: "contact",
      submission: { id: REFERENCE, received_at: new Date().toISOString(), fields: { name: "Ada", message: LONG } },
      verification: null,
    });
    const id = "msg_sinkpagee2e";
    const signature = new Webhook(SECRET).sign(id, new Date(), body);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const webhook = await fetch(sink.url, {
      method: "POST",
      headers: { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signature },
      body,
    });
    expect(webhook.status).toBe(200);
    const slack = await fetch(sink.slackUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        text: "New submission: Contact us",
        blocks: [
          { type: "header", text: { type: "plain_text", text: "New submission: Contact us" } },
          { type: "section", text: { type: "plain_text", text: `Message\n${LONG}` } },
          { type: "context", elements: [{ type: "mrkdwn", text: `Reference \`${REFERENCE}\`` }] },
        ],
      }),
    });
    expect(slack.status).toBe(200);
    const discord = await fetch(sink.discordUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        username: "Gatepost",
        embeds: [
          { title: "New submission: Contact us", fields: [{ name: "Message", value: LONG }], footer: { text: `Reference ${REFERENCE}` } },
        ],
      }),
    });
    expect(discord.status).toBe(204);
    sink.captureEmail(email());

    const { context, page, errors } = await phonePage(browser);
    await page.goto(sink.pageUrl);
    for (const kind of ["webhook", "email", "slack", "discord"]) {
      const heading = page.getByRole("heading", { name: new RegExp(`^${kind} `) });
      await heading.waitFor(WAIT);
      expect(await heading.count(), kind).toBe(1);
      expect(await heading.isVisible(), kind).toBe(true);
    }
    expect(await page.getByText("verified with the standardwebhooks library").count()).toBe(1);
    const width = await pageWidth(page);
    expect(width).toBeLessThanOrEqual(390);
    const artifacts = new URL("../artifacts/", import.meta.url);
    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: new URL("sink-page-phone.png", artifacts).pathname, fullPage: true });
    // The page asks for a favicon the sink does not have; nothing else may fail.
    expect(errors.filter((e) => !e.includes("404"))).toEqual([]);
    await context.close();
  });
});

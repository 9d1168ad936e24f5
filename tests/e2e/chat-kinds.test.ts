import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { LOCAL_TELEGRAM } from "~/lib/destinations/telegram/spec";
import { launchBrowser, watchErrors } from "./chromium";
import { WAIT, patient } from "./browser-page";
import { startOwnSite, type OwnSite } from "./own-site";

// Telegram, Google Chat and Microsoft Teams end to end, as `npm start` runs them: a message typed in
// Chromium, with markup in it, reaches the local sink's three stand-ins right after the answer, and the
// sink's page shows each as the service would render it, the markup as typed. Its own server, so the
// contact form's extra destinations change nothing the other e2e files see.

let browser: Browser;
let site: OwnSite;

beforeAll(async () => {
  site = await startOwnSite("chat", {
    password: "chat kinds e2e password 01234567",
    secret: `whsec_${Buffer.from("chat-kinds-e2e-secret-0123456789").toString("base64")}`,
    bindings: (own, port) => ({
      FORM_MIN_FILL_SECONDS: "0",
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      CONTACT_TELEGRAM_BOT_TOKEN: LOCAL_TELEGRAM.token,
      CONTACT_TELEGRAM_CHAT_ID: LOCAL_TELEGRAM.chatId,
      CONTACT_TELEGRAM_API_URL: `${own.origin}/telegram`,
      CONTACT_GOOGLE_CHAT_WEBHOOK_URL: `${own.origin}/googlechat`,
      CONTACT_TEAMS_WEBHOOK_URL: `${own.origin}/teams`,
    }),
  });
  browser = await launchBrowser(inject("chromiumPath"));
});

afterAll(async () => {
  await browser?.close();
  await site?.stop();
});

describe("the chat kinds from the browser", () => {
  it("arrive at Telegram's, Google Chat's and Teams' stand-ins, shown as typed", async () => {
    const name = 'Katherine <b>Johnson</b> & "co" **x** <users/all>';
    const visitor = patient(await browser.newPage());
    const errors = watchErrors(visitor);
    await visitor.goto(`${site.url}/f/contact`);
    await visitor.getByLabel("Your name").fill(name);
    await visitor.getByLabel("E-mail address").fill("katherine@example.org");
    await visitor.getByLabel("Message").fill('Trajectory <a href="https://evil.example">checked</a> {{DATE(2017-02-14T06:08:39Z)}}');
    await visitor.getByText("Check complete — you can send the form.").waitFor(WAIT);
    await visitor.getByRole("button", { name: "Send" }).click();
    await visitor.getByRole("heading", { name: "Received" }).waitFor(WAIT);
    const reference = (await visitor.locator(".reference").textContent()) ?? "";
    expect(errors).toEqual([]);
    await visitor.close();

    const mine = () => site.sink.snapshot().messages.filter((m: { reference: string | null }) => m.reference === reference);
    await expect
      .poll(
        () =>
          mine()
            .map((m: { kind: string }) => m.kind)
            .sort(),
        WAIT,
      )
      .toEqual(["googlechat", "teams", "telegram"]);
    for (const message of mine()) expect(message.text, message.kind).toContain(name);

    const page = patient(await browser.newPage());
    await page.goto(site.sink.pageUrl);
    for (const kind of ["telegram", "googlechat", "teams"]) {
      const heading = page.getByRole("heading", { name: `${kind} New submission: Contact us` });
      await heading.waitFor(WAIT);
    }
    // Each message shows the name as typed (the page may hold it in more than one element per message).
    expect(await page.getByText(name).count()).toBeGreaterThanOrEqual(3);
    await page.close();
  });
});

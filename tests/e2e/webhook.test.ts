import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchBrowser, watchErrors } from "./chromium";
import { WAIT, patient } from "./browser-page";

// The whole path a person trying Gatepost sees: a message sent in the browser arrives at the local
// webhook sink, signed, right after the thank-you page.
let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser(inject("chromiumPath"));
  page = patient(await browser.newPage());
});
afterAll(async () => {
  await browser?.close();
});

interface SinkState {
  requests: Array<{ id: string; signatureValid: boolean; outcome: string }>;
  unique: Array<{ id: string; payload: { form: string; submission: { id: string; fields: Record<string, unknown> } } }>;
}

describe("webhook delivery from the browser", () => {
  it("delivers a signed submission.created to the sink once the visitor sees the thank-you page", async () => {
    const errors = watchErrors(page);
    await page.goto(`${inject("baseUrl")}/f/contact`);
    await page.getByLabel("Your name").fill("Katherine Johnson");
    await page.getByLabel("E-mail address").fill("katherine@example.org");
    await page.getByLabel("Message").fill("Trajectory checked by hand.");
    await page.getByText("Check complete — you can send the form.").waitFor(WAIT);
    await expect.poll(() => page.getByRole("button", { name: "Send" }).isEnabled(), WAIT).toBe(true);
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("heading", { name: "Received" }).waitFor(WAIT);
    const submissionId = page.url().split("/").pop();

    const delivered = async () => {
      const state: SinkState = await (await fetch(`${inject("sinkControl")}/state`)).json();
      return state.unique.find((u) => u.payload.submission.id === submissionId);
    };
    await expect.poll(delivered, WAIT).toBeDefined();
    const delivery = (await delivered())!;
    expect(delivery.payload.form).toBe("contact");
    expect(delivery.payload.submission.fields).toEqual({
      name: "Katherine Johnson",
      email: "katherine@example.org",
      message: "Trajectory checked by hand.",
    });
    const state: SinkState = await (await fetch(`${inject("sinkControl")}/state`)).json();
    expect(state.requests.filter((r) => r.id === delivery.id)).toEqual([
      expect.objectContaining({ signatureValid: true, outcome: "accepted" }),
    ]);
    expect(errors).toEqual([]);
  });
});

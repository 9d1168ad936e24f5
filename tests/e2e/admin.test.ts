import { mkdirSync, readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { E2E_ADMIN_PASSWORD } from "./bindings";
import { launchBrowser, watchErrors } from "./chromium";
import { resetStandin } from "./standin";
import { WAIT, patient, axeViolations } from "./browser-page";

const ARTIFACTS = new URL("../artifacts/", import.meta.url);

let browser: Browser;
let page: Page;
let errors: string[];

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchBrowser(inject("chromiumPath"));
  await resetStandin();
});
afterAll(async () => {
  await browser?.close();
});

/** Sends one contact submission through the real form (the stand-in provider passes it). */
async function submitContact(p: Page, name: string): Promise<string> {
  await p.goto(`${inject("baseUrl")}/f/contact`);
  await p.getByLabel("Your name").fill(name);
  await p.getByLabel("E-mail address").fill("operator-test@example.org");
  await p.getByLabel("Message").fill("=1+1 is how a formula starts, and this is a message.");
  await p.getByText("Check complete — you can send the form.").waitFor(WAIT);
  await p.getByRole("button", { name: "Send" }).click();
  await p.getByRole("heading", { name: "Received" }).waitFor(WAIT);
  return (await p.locator(".reference").textContent()) ?? "";
}

/** A minimal RFC 4180 parser (quoted fields, doubled quotes, CRLF), enough to read our export back. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(cell);
      cell = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else cell += c;
  }
  return rows;
}

describe("operator console in Chromium", () => {
  it("signs in, finds a submission, opens its timeline, exports a CSV and signs out", async () => {
    const visitor = patient(await browser.newPage());
    const name = `Operator Test ${Date.now()}`;
    const reference = await submitContact(visitor, name);
    await visitor.close();
    expect(reference).toMatch(/^[0-9a-f-]{36}$/);

    const context = await browser.newContext({ acceptDownloads: true });
    page = patient(await context.newPage());
    errors = watchErrors(page);
    await page.goto(`${inject("baseUrl")}/admin`);
    await page.getByRole("heading", { name: "Operator sign-in" }).waitFor(WAIT);
    expect(page.url()).toContain("/admin/login?next=%2Fadmin");
    expect(await axeViolations(page)).toEqual([]);
    await page.getByLabel("Password").fill("wrong password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("That password is not right.").waitFor(WAIT);
    await page.getByLabel("Password").fill(E2E_ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Dashboard" }).waitFor(WAIT);
    await page.getByRole("rowheader", { name: "contact" }).waitFor(WAIT);
    // ADR 014: Chromium keeps the __Host- cookie (Secure, Path=/, no Domain) on plain-http loopback.
    const session = (await context.cookies()).find((c) => c.name === "__Host-gp_admin_session");
    expect(session).toMatchObject({ secure: true, httpOnly: true, path: "/", sameSite: "Lax" });
    await page.screenshot({ path: new URL("admin-dashboard.png", ARTIFACTS).pathname, fullPage: true });
    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole("link", { name: "Submissions", exact: true }).click();
    await page.getByRole("heading", { name: "Submissions" }).waitFor(WAIT);
    await page.getByRole("searchbox", { name: "Search" }).fill(name);
    await page.getByRole("button", { name: "Filter" }).click();
    await page.getByText("1 submission on this page.").waitFor(WAIT);
    await page.getByRole("link", { name: `Open submission ${reference}` }).click();
    await page.getByRole("heading", { name: "Delivery timeline" }).waitFor(WAIT);
    expect(await page.getByText(name).count()).toBeGreaterThan(0);
    expect(page.url()).toContain(`/admin/submissions/${reference}`);
    // The first delivery ran right after "accepted": one attempt to the local sink, answered 200.
    const timeline = page.getByRole("region", { name: "Delivery to webhook" });
    await timeline.getByText("1 attempt logged").waitFor(WAIT);
    expect(await timeline.getByRole("cell", { name: "200", exact: true }).count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole("button", { name: "Redeliver" }).click();
    await page.getByText("Queued 1 delivery again.").waitFor(WAIT);
    // Same webhook-id, a second attempt in the log (the sink answers it as a duplicate, with 200).
    await expect
      .poll(async () => {
        await page.reload();
        return timeline.getByRole("cell", { name: "200", exact: true }).count();
      }, WAIT)
      .toBe(2);
    await page.screenshot({ path: new URL("admin-submission.png", ARTIFACTS).pathname, fullPage: true });

    await page.getByRole("link", { name: "Submissions", exact: true }).click();
    await page.getByRole("heading", { name: "Submissions" }).waitFor(WAIT);
    // The export's form list starts with "All forms"; this one is contact.
    await page.getByRole("form", { name: "Export submissions" }).locator("select[name=form]").selectOption("contact");
    const downloadPromise = page.waitForEvent("download", WAIT);
    await page.getByRole("button", { name: "Download export" }).click();
    const download = await downloadPromise;
    expect(download.suggestedFilename()).toMatch(/^gatepost-contact-.*\.csv$/);
    const bytes = readFileSync((await download.path())!);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const rows = parseCsv(bytes.subarray(3).toString("utf8"));
    const header = rows[0];
    expect(header.slice(0, 5)).toEqual(["id", "form_id", "received_at", "state", "test"]);
    const mine = rows.find((r) => r[0] === reference);
    expect(mine, "the export holds the submission").toBeDefined();
    expect(mine![header.indexOf("field:name")]).toBe(name);
    expect(mine![header.indexOf("field:message")]).toBe("'=1+1 is how a formula starts, and this is a message.");

    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.getByRole("heading", { name: "Operator sign-in" }).waitFor(WAIT);
    await page.goto(`${inject("baseUrl")}/admin/submissions`);
    await page.getByRole("heading", { name: "Operator sign-in" }).waitFor(WAIT);
    // A copy of the cookie taken before sign-out opens nothing: the session ended on the server.
    const copied = await browser.newContext();
    await copied.addCookies([session!]);
    const thief = patient(await copied.newPage());
    await thief.goto(`${inject("baseUrl")}/admin/submissions`);
    await thief.getByRole("heading", { name: "Operator sign-in" }).waitFor(WAIT);
    await copied.close();
    // The one failed request Chromium reports is the wrong password's 401; nothing else may fail.
    expect(errors).toEqual(["Failed to load resource: the server responded with a status of 401 (Unauthorized)"]);
    await context.close();
  });
});

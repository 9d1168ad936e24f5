import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it, inject } from "vitest";
import { E2E_ADMIN_PASSWORD } from "./bindings";
import { WAIT, patient, useBrowser } from "./browser-page";
import { watchErrors } from "./chromium";

// An export built as a job (docs/decisions/085, 109), in Chromium: the console's button asks for it and
// lands on the job's page in the console, which says how far it got and links back; the export queue
// builds the file, the page only reads it (with script: without reloading; without: a refresh inside
// <noscript>), and the download starts by itself once the file is ready, with script or without.

const browser = useBrowser();
const ROWS = 2600;

/** ROWS newsletter submissions dated 2020, written straight into the e2e app's local D1. */
function seedOldNewsletters(): void {
  const sql = `WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < ${ROWS})
    INSERT INTO submissions (id, form_id, fields, received_at, status)
    SELECT printf('e2e-export-%06d', n), 'newsletter', json_object('email', 'reader' || n || '@example.org'),
      strftime('%Y-%m-%dT%H:%M:%fZ', '2020-01-01', '+' || n || ' seconds'), 'accepted' FROM c`;
  execFileSync("npx", ["wrangler", "d1", "execute", "gatepost", "--local", "--persist-to", inject("persistTo"), "--command", sql], {
    encoding: "utf8",
    timeout: 120_000,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Signs in, asks for the newsletter's export from the list's button, and returns the download. */
async function exportFromTheButton(javaScriptEnabled: boolean) {
  const context = await browser().newContext({ acceptDownloads: true, javaScriptEnabled });
  const page = patient(await context.newPage());
  const errors = watchErrors(page);
  await page.goto(`${inject("baseUrl")}/admin/login?next=%2Fadmin%2Fsubmissions`);
  await page.getByLabel("Password").fill(E2E_ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Submissions" }).waitFor(WAIT);
  const exportForm = page.getByRole("form", { name: "Export submissions" });
  await exportForm.locator("select[name=form]").selectOption("newsletter");
  await exportForm.locator("input[name=to]").fill("2020-12-31");
  const downloadPromise = page.waitForEvent("download", WAIT);
  await exportForm.getByRole("button", { name: "Download export" }).click();
  // The job's page, in the console's frame: its stage and rows (or that it is ready), and the way back.
  await page.getByRole("heading", { name: /^(Preparing your export|Your export is ready)$/ }).waitFor(WAIT);
  expect(new URL(page.url()).pathname).toMatch(/^\/admin\/exports\/[0-9a-f-]{36}$/);
  let reloads = 0;
  // A reload is a document request for the job's page itself (the download is a request of its own).
  page.on("request", (request) => {
    if (request.isNavigationRequest() && new URL(request.url()).pathname.startsWith("/admin/exports/")) reloads++;
  });
  expect(await page.getByRole("navigation", { name: "Operator console" }).isVisible()).toBe(true);
  expect(await page.getByRole("status").textContent()).toMatch(/rows/);
  expect(await page.getByRole("progressbar", { name: "Export progress" }).count()).toBe(1);
  expect(await page.getByRole("link", { name: "Back to submissions" }).getAttribute("href")).toBe("/admin/submissions");
  const download = await downloadPromise;
  expect(download.suggestedFilename()).toBe("gatepost-newsletter-start-to-2020-12-31.csv");
  const text = readFileSync((await download.path())!, "utf8");
  // The page has said so meanwhile, and offers the file again.
  await page.getByRole("heading", { name: "Your export is ready" }).waitFor(WAIT);
  expect(await page.getByRole("link", { name: "Download the file" }).count()).toBe(1);
  expect(errors).toEqual([]);
  await context.close();
  return { text, reloads };
}

function expectTheWholeFile(text: string) {
  const lines = text.replace(/^\uFEFF/, "").split("\r\n");
  expect(lines[0]).toBe(
    "id,form_id,received_at,state,test,quarantine_reason,verify_hostname,verify_action,verify_challenge_ts,field:email,field:consent,field:source",
  );
  expect(lines.filter((line) => line.startsWith("e2e-export-"))).toHaveLength(ROWS);
  expect(lines[1]).toMatch(/^e2e-export-000001,newsletter,2020-01-01T00:00:01\.000Z,stored,false,/);
}

describe("an export in Chromium", () => {
  beforeAll(() => seedOldNewsletters());

  it("shows the job's page in the console, follows it without reloading, and downloads the whole file", async () => {
    const { text, reloads } = await exportFromTheButton(true);
    expectTheWholeFile(text);
    // With script the page asks for its data, never the whole page again.
    expect(reloads).toBe(0);
  });

  it("works without script: the page comes back by itself and the download starts", async () => {
    expectTheWholeFile((await exportFromTheButton(false)).text);
  });
});

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it, inject } from "vitest";
import { E2E_ADMIN_PASSWORD } from "./bindings";
import { PHONE, WAIT, axeViolations, pageWidth, phonePage, screenshotsDir, useBrowser } from "./browser-page";

// ADR 050 and 051: a visitor attaches a PDF to the apply form on a 390 px phone, seeing the limits
// and each error at the field, and the owner downloads it from the console, byte for byte.

const SHOTS = screenshotsDir();
const browser = useBrowser();
let reference = "";
const name = `Applicant ${Date.now()}`;
/** A small PDF, as its first bytes go: what Gatepost checks. */
const PDF = Buffer.from(`%PDF-1.7\n% ${name}\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n`);

describe("the apply form on a 390 px phone", () => {
  it("shows the limits, says what is wrong with a file at the field, and sends a PDF", async () => {
    const { context, page, errors } = await phonePage(browser());
    await page.goto(`${inject("baseUrl")}/f/apply`);
    // The form comes in two steps (issue #55): the CV and the captcha are on the second.
    await page.getByLabel("Your name").fill(name);
    await page.getByLabel("E-mail address").fill("applicant@example.org");
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByText("Check complete — you can send the form.").waitFor(WAIT);
    const cv = page.getByLabel("Your CV");
    expect(await cv.getAttribute("type")).toBe("file");
    expect(await cv.getAttribute("accept")).toBe("application/pdf,.pdf");
    // The limits are part of the field's description, read out with it.
    const described = (await cv.getAttribute("aria-describedby"))!.split(" ");
    const descriptions = await Promise.all(described.map((id) => page.locator(`#${id}`).textContent()));
    expect(descriptions).toEqual(["Your curriculum vitae, as you would send it to any employer.", "A PDF file of up to 10 MB."]);
    expect(await axeViolations(page)).toEqual([]);

    // A web page named like a PDF: the page reads its first bytes and says so before anything is sent.
    await cv.setInputFiles({
      name: "cv.pdf",
      mimeType: "application/pdf",
      buffer: Buffer.from("<!doctype html><script>alert(1)</script>"),
    });
    await page.getByText("Your CV must be a PDF file, and “cv.pdf” is not one.").waitFor(WAIT);
    expect(await cv.getAttribute("aria-invalid")).toBe("true");
    expect(await axeViolations(page)).toEqual([]);

    // Sent anyway, the server refuses it at the field too, and the error summary leads there.
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("heading", { name: "There is a problem" }).waitFor(WAIT);
    await page.getByRole("alert").getByRole("link", { name: "Your CV must be a PDF file, and “cv.pdf” is not one." }).waitFor(WAIT);
    expect(await cv.getAttribute("aria-invalid")).toBe("true");
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: new URL("apply-errors-phone.png", SHOTS).pathname, fullPage: true });

    await page.getByText("Check complete — you can send the form.").waitFor(WAIT);
    await cv.setInputFiles({ name: "Ada Lovelace CV.pdf", mimeType: "application/pdf", buffer: PDF });
    await expect.poll(() => cv.getAttribute("aria-invalid"), WAIT).toBeNull();
    await page.screenshot({ path: new URL("apply-phone.png", SHOTS).pathname, fullPage: true });
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("heading", { name: "Received" }).waitFor(WAIT);
    reference = (await page.locator(".reference").textContent()) ?? "";
    expect(reference).toMatch(/^[0-9a-f-]{36}$/);
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    expect(
      errors.filter((e) => !e.includes("status of 422")),
      errors.join("\n"),
    ).toEqual([]);
    await context.close();
  });
});

describe("the owner", () => {
  it("downloads the CV from the submission's page in the console, byte for byte, as an attachment", async () => {
    expect(reference, "the visitor test sent an application first").toMatch(/^[0-9a-f-]{36}$/);
    const { context, page, errors } = await phonePage(browser(), { acceptDownloads: true });
    await page.goto(`${inject("baseUrl")}/admin/submissions/${reference}`);
    await page.getByLabel("Password").fill(E2E_ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Submission", exact: true, level: 1 }).waitFor(WAIT);
    expect(await page.getByText(name).count()).toBeGreaterThan(0);
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: new URL("admin-submission-file-phone.png", SHOTS).pathname, fullPage: true });

    const downloading = page.waitForEvent("download", WAIT);
    await page.getByRole("link", { name: "Ada Lovelace CV.pdf" }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe("Ada Lovelace CV.pdf");
    expect(readFileSync((await download.path())!)).toEqual(PDF);
    // The page stayed where it was: the file was saved, never shown.
    expect(page.url()).toContain(`/admin/submissions/${reference}`);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("can read the local bucket the way docs/development.md says, while the Worker runs", () => {
    const script = new URL("../../scripts/local-uploads.mjs", import.meta.url).pathname;
    const listing = execFileSync(process.execPath, [script, "--persist-to", inject("persistTo")], { encoding: "utf8", timeout: 60_000 });
    const line = listing.split("\n").find((l) => l.includes(reference));
    expect(line, listing).toMatch(new RegExp(`^files/[0-9a-f-]{36}\\s+${PDF.byteLength}\\s+\\S+\\s+${reference}\\s+cv$`));
  });
});

import { beforeEach, describe, expect, it } from "vitest";
import { FORMS } from "~/lib/forms/registry";
import type { FieldDef } from "~/forms/schema";
import { appFetch, clearTables, formPost, multipartPost, pdfBytes, standin, standinToken } from "./helpers";
import { adminEnv, adminGet, clearAdminTables, sessionCookie } from "./admin-helpers";

// What the pages say, as a person reads them: the visitors' footer only where visitors are, and one
// "thank you" on the thank-you page, the owner's own (their success messages start with one).

const TURNSTILE_FOOTER = "Protected by Cloudflare Turnstile";

/** The visible text of some HTML, roughly: scripts, tags and React's comment markers removed. */
function textOf(html: string) {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, " ")
    .replace(/<title>[\s\S]*?<\/title>/g, " ")
    .replace(/<!-- -->/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ");
}

beforeEach(async () => {
  await standin.reset();
  await clearTables();
  await clearAdminTables();
});

describe("the visitors' footer", () => {
  it("shows on the visitors' pages", async () => {
    for (const path of ["/", "/f/contact", "/f/newsletter", "/no-such-page"]) {
      expect(await (await appFetch(new Request(`http://localhost${path}`))).text(), path).toContain(TURNSTILE_FOOTER);
    }
  });

  it("never shows on a console page, signed in or not", async () => {
    const appEnv = await adminEnv();
    const cookie = await sessionCookie("admin", appEnv);
    const pages: Array<[string, string | undefined]> = [
      ["/admin/login", undefined],
      ...["/admin", "/admin/submissions", "/admin/audit", "/admin/erase", "/admin/submissions/nope"].map((p): [string, string] => [
        p,
        cookie,
      ]),
    ];
    for (const [path, signedIn] of pages) {
      const html = await (await appFetch(adminGet(path, signedIn), appEnv)).text();
      expect(html, path).toContain("</main>");
      expect(html, path).not.toContain(TURNSTILE_FOOTER);
    }
  });
});

/** An answer each field takes: a select's first option, an address where one is asked. */
function sampleAnswer(field: FieldDef): string {
  if (field.type === "select") return field.options?.[0]?.value ?? "";
  if (field.type === "email") return "ada@example.org";
  if (field.type === "url") return "https://example.org/portfolio";
  return field.type === "checkbox" ? "on" : "Hello from a test, at length.";
}

describe("the thank-you page", () => {
  it.each(FORMS.map((f) => [f.id, f]))("says thank you once, in the owner's words (%s)", async (_id, form) => {
    const fields = Object.fromEntries(form.fields.filter((f) => f.type !== "file").map((f) => [f.name, sampleAnswer(f)]));
    const files = form.fields.filter((f) => f.type === "file").map((f) => ({ field: f.name, name: "cv.pdf", bytes: pdfBytes() }));
    const post = files.length > 0 ? multipartPost : (path: string, values: Record<string, string>) => formPost(path, values);
    const posted = await appFetch(post(`/f/${form.id}`, { ...fields, "cf-turnstile-response": standinToken({ action: form.id }) }, files));
    expect(posted.status).toBe(303);
    const text = textOf(await (await appFetch(new Request(`http://localhost${posted.headers.get("location")}`))).text());
    expect(text).toContain(form.successMessage);
    expect(text.match(/thank you/gi) ?? []).toHaveLength((form.successMessage.match(/thank you/gi) ?? []).length);
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { errorCodeOf, FALLBACK_ERROR_CODE } from "~/lib/http/error-code";
import { ERRORS } from "~/lib/http/errors";
import { ERROR_CODE_HEADER, refusal, unexpectedErrorResponse } from "~/lib/http/responses.server";
import { readOperatorNotes, renderErrorsDoc } from "../../scripts/errors-doc";

const doc = readFileSync(new URL("../../docs/errors.md", import.meta.url), "utf8");
const rows = new Map(
  [...doc.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| (.+?) \|/gm)].map((m) => [m[1], { status: Number(m[2]), message: m[3] }]),
);

describe("error catalogue", () => {
  it.each(Object.entries(ERRORS))("%s is documented in docs/errors.md with its status and message", (code, entry) => {
    const row = rows.get(code);
    expect(row, `docs/errors.md has no row for ${code}`).toBeDefined();
    expect(row!.status).toBe(entry.status);
    expect(row!.message.startsWith(entry.message)).toBe(true);
  });

  it("documents no code the app does not have", () => {
    expect([...rows.keys()].filter((code) => !(code in ERRORS))).toEqual([]);
  });
});

describe("docs/errors.md is generated from ERRORS", () => {
  it("is up to date: run `npm run docs:errors` after changing ERRORS", () => {
    expect(doc).toBe(renderErrorsDoc(doc));
  });

  it.each(Object.keys(ERRORS))("%s has an operator note in docs/errors.md", (code) => {
    expect(readOperatorNotes(doc).get(code)?.trim(), `write what an operator should check for ${code}`).toBeTruthy();
  });

  it("keeps the operator notes when it regenerates the table", () => {
    const stale = doc.replace(/^\| `not_found` \| 404 \| .*? \| /m, "| `not_found` | 410 | Old words. | ");
    expect(stale).not.toBe(doc);
    expect(renderErrorsDoc(stale)).toBe(doc);
  });
});

// What Remix hands a boundary for a thrown Response (isRouteErrorResponse checks this shape).
const routeError = (status: number, data: unknown) => ({ status, statusText: "", internal: false, data });

describe("one fallback code for unknown failures", () => {
  it("is what a bug, or a 5xx without a code, stands for", () => {
    expect(errorCodeOf(new Error("boom"))).toBe(FALLBACK_ERROR_CODE);
    expect(errorCodeOf(routeError(503, null))).toBe(FALLBACK_ERROR_CODE);
    expect(FALLBACK_ERROR_CODE).toBe("internal_error");
  });

  it("keeps a refusal's own code, and names the router's 404 and 405", () => {
    expect(errorCodeOf(routeError(429, { code: "rate_limited" }))).toBe("rate_limited");
    expect(errorCodeOf(routeError(404, null))).toBe("not_found");
    expect(errorCodeOf(routeError(405, null))).toBe("method_not_allowed");
  });

  it("is in the header and the body of the answer to an escaped throw, HTML or JSON", async () => {
    const page = unexpectedErrorResponse(new Request("http://localhost/f/contact", { method: "POST" }));
    expect(page.status).toBe(500);
    expect(page.headers.get(ERROR_CODE_HEADER)).toBe(FALLBACK_ERROR_CODE);
    expect(await page.text()).toContain(`<code>${FALLBACK_ERROR_CODE}</code>`);
    const api = unexpectedErrorResponse(new Request("http://localhost/api/x", { headers: { accept: "application/json" } }));
    expect(api.headers.get(ERROR_CODE_HEADER)).toBe(FALLBACK_ERROR_CODE);
    expect(await api.json()).toMatchObject({ code: FALLBACK_ERROR_CODE, status: 500 });
  });

  it("a thrown refusal carries its code in the header too", () => {
    expect(refusal("form_not_found").headers.get(ERROR_CODE_HEADER)).toBe("form_not_found");
  });
});

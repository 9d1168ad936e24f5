import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { appFetch, formPost, standin, standinToken, testEnv } from "./helpers";

// Every HTML document the app renders, including refusals and error boundaries, carries the CSP with
// a fresh nonce and the hardening headers; every inline script carries that nonce.

const VALID = { name: "Ada Lovelace", email: "ada@example.org", message: "Checking the headers." };
let thanksPath = "";

beforeAll(async () => {
  await standin.reset();
  await env.DB.exec("DELETE FROM submissions");
  const accepted = await appFetch(formPost("/f/contact", { ...VALID, "cf-turnstile-response": standinToken() }));
  thanksPath = accepted.headers.get("location") ?? "";
});

const PAGES: Array<[string, () => Request, number]> = [
  ["the landing page", () => new Request("http://localhost/"), 200],
  ["the contact form", () => new Request("http://localhost/f/contact"), 200],
  ["the thank-you view", () => new Request(`http://localhost${thanksPath}`), 200],
  ["the operator sign-in page", () => new Request("http://localhost/admin/login"), 200],
  ["a form with field errors", () => formPost("/f/contact", { ...VALID, email: "nope" }), 422],
  ["an unknown form (404)", () => new Request("http://localhost/f/no-such-form"), 404],
  ["an unknown path (404)", () => new Request("http://localhost/no/such/page"), 404],
  ["a POST to an unknown path (404)", () => formPost("/no/such/page", {}), 404],
];

function scriptNonces(html: string): { total: number; nonces: string[] } {
  const tags = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
  return { total: tags.length, nonces: tags.map((tag) => /\snonce="([^"]*)"/.exec(tag)?.[1] ?? "") };
}

describe("security headers on every HTML response", () => {
  it.each(PAGES)("%s", async (_name, makeRequest, status) => {
    const response = await appFetch(makeRequest());
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = response.headers.get("content-security-policy") ?? "";
    const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toBe(
      `default-src 'self'; script-src 'nonce-${nonce}' 'strict-dynamic' https://challenges.cloudflare.com ${standin.origin()}; ` +
        "frame-src https://challenges.cloudflare.com; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
    );
    expect(response.headers.get("strict-transport-security")).toMatch(/^max-age=\d+; includeSubDomains$/);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    expect(response.headers.get("permissions-policy")).toContain("camera=()");

    const html = await response.text();
    // One whole document in standards mode (renderToString leaves the doctype to the entry).
    expect(html).toMatch(/^<!DOCTYPE html><html lang="en"[^>]*>[\s\S]*<\/html>$/);
    const scripts = scriptNonces(html);
    expect(scripts.total).toBeGreaterThan(0);
    expect(scripts.nonces.every((n) => n === nonce)).toBe(true);
    // default-src 'self' also governs styles: an inline style attribute would be blocked.
    expect(html).not.toMatch(/\sstyle="/);
    expect(html).not.toMatch(/\son[a-z]+="/);
  });

  it("hands the page's loader data to the browser inside the document, under the nonce", async () => {
    // The page is rendered to a string with Remix's classic data handoff (ADR 011): the data the
    // browser hydrates from must be the very data the markup was rendered with.
    const response = await appFetch(new Request("http://localhost/f/contact"));
    const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(response.headers.get("content-security-policy") ?? "")?.[1];
    const html = await response.text();
    // A base64 nonce may hold "+" or "/": escape it before it goes into a pattern.
    const quoted = nonce?.replace(/[+/=]/g, (c) => `\\${c}`);
    const handoff = new RegExp(`<script nonce="${quoted}">window\\.__remixContext = (\\{.*?\\});</script>`).exec(html);
    expect(handoff, "no window.__remixContext script with the response's nonce").not.toBeNull();
    const data = JSON.parse(handoff![1]).state.loaderData["routes/f.$formId"];
    const rendered = (name: string) => new RegExp(`name="${name}"[^>]*value="([^"]*)"`).exec(html)?.[1];
    expect(data.form.id).toBe("contact");
    expect(data.stamp).toMatch(/^v2\.\d{13}\./);
    expect(rendered("_gp_ts")).toBe(data.stamp);
    expect(rendered("_gp_sid")).toBe(data.sid);
  });

  it("uses a new nonce for every response", async () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const csp = (await appFetch(new Request("http://localhost/"))).headers.get("content-security-policy") ?? "";
      nonces.add(/'nonce-([^']+)'/.exec(csp)?.[1] ?? "");
    }
    expect(nonces.size).toBe(3);
  });

  it("trusts only Cloudflare's script origin when the script URL is not a loopback stand-in", async () => {
    const response = await appFetch(
      new Request("http://localhost/f/contact"),
      testEnv({ TURNSTILE_SCRIPT_URL: "https://challenges.cloudflare.com/turnstile/v0/api.js" }),
    );
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/script-src 'nonce-[^']+' 'strict-dynamic' https:\/\/challenges\.cloudflare\.com; /);
  });
});

import { describe, expect, it } from "vitest";
import { contactForm } from "~/forms/contact";
import { checkOrigin, corsHeaders } from "~/lib/http/cors.server";
import { exactOrigins, formatOrigin, matchOrigin, parseOrigin } from "~/lib/http/origin";
import { buildContentSecurityPolicy } from "~/lib/http/security-headers.server";
import { allowedOriginsFor, readFormSettings } from "~/lib/settings/form-guards.server";
import type { SettingProblem } from "~/lib/settings/setting-problem";

// Embed origins are exact origins, parsed, and every header naming one is rebuilt from its parts
// (ADR 108): nothing typed or stored can add a directive to a CSP or a value to a CORS header.

const HOSTILE = "https://x;report-uri https://collector.example";

describe("parseOrigin", () => {
  it("takes scheme, host and port apart", () => {
    expect(parseOrigin("https://www.example.org")).toEqual({ scheme: "https", host: "www.example.org", port: null });
    expect(parseOrigin("http://127.0.0.1:8080")).toEqual({ scheme: "http", host: "127.0.0.1", port: 8080 });
    expect(parseOrigin("http://[::1]:3000")).toEqual({ scheme: "http", host: "[::1]", port: 3000 });
    expect(formatOrigin(parseOrigin("https://xn--bcher-kva.example:8443")!)).toBe("https://xn--bcher-kva.example:8443");
  });

  it("refuses anything else, however the URL standard would read it", () => {
    for (const value of [
      HOSTILE,
      "https://x;report-uri",
      "https://a,b.example",
      "https://a'b.example",
      'https://a"b.example',
      "https://a_b.example",
      "https://*.example.org",
      "https://a..example",
      "https://-a.example",
      "https://Example.org",
      "https://example.org:443",
      "https://example.org:99999",
      "https://example.org/",
      "https://user@example.org",
      "https://bücher.example",
      "https://1.2.3",
      "ftp://example.org",
      "",
    ]) {
      expect(parseOrigin(value), value).toBeNull();
    }
  });
});

describe("headers built from parsed origins", () => {
  it("leave out of frame-ancestors whatever does not parse", () => {
    const csp = buildContentSecurityPolicy("n0nce", undefined, {}, [HOSTILE, "https://x;report-uri", "https://site.example"]);
    expect(csp).toContain("frame-ancestors https://site.example; form-action 'self'");
    expect(csp).not.toContain("report-uri");
  });

  it("answer CORS only for an exact listed origin, echoed from its parts", () => {
    const post = (origin: string) =>
      new Request("https://forms.example/api/forms/contact/submissions", { method: "POST", headers: { Origin: origin } });
    const stored = ["https://x;report-uri", "https://site.example"];
    expect(checkOrigin(post("https://x;report-uri"), stored)).toEqual({ ok: false, code: "origin_not_allowed" });
    expect(checkOrigin(post("https://site.example"), stored)).toEqual({ ok: true, corsOrigin: "https://site.example" });
    expect(corsHeaders("https://site.example").get("Access-Control-Allow-Origin")).toBe("https://site.example");
    expect(matchOrigin(null, stored)).toBeNull();
  });

  it("drop a stored value that is not exact from a form's allowed origins, and say so of the environment's", () => {
    const problems: SettingProblem[] = [];
    const settings = readFormSettings({ FORM_ALLOWED_ORIGINS: `contact=https://env.example,https://x;report-uri` }, problems);
    expect(problems.map((p) => p.variable)).toEqual(["FORM_ALLOWED_ORIGINS"]);
    const form = { ...contactForm, allowedOrigins: [HOSTILE, "https://defined.example"] };
    expect(allowedOriginsFor(form, settings)).toEqual(["https://defined.example", "https://env.example"]);
    expect(exactOrigins(["https://a.example", "https://a.example", "junk"])).toEqual(["https://a.example"]);
  });
});

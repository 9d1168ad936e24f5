import { describe, expect, it } from "vitest";
import { contactForm } from "~/forms/contact";
import { answerPreflight, checkOrigin } from "~/lib/http/cors.server";
import { allowedOriginsFor, parseExtraOrigins, rateLimitsFor, readFormSettings } from "~/lib/settings/form-guards.server";
import { readIdempotencyKey } from "~/lib/submit/idempotency.server";
import { isKeyConflict } from "~/lib/storage/submissions.server";
import { wantsJson } from "~/lib/http/responses.server";

describe("readFormSettings", () => {
  it("has safe defaults and treats a short signing secret as missing", () => {
    const s = readFormSettings({ FORM_SIGNING_SECRET: "short" });
    expect(s.signingSecret).toBeUndefined();
    expect(s.minFillMs).toBe(3_000);
    expect(s.defaultRateLimits).toEqual({ perMinute: 5, perDay: 50 });
    expect(readFormSettings({ FORM_SIGNING_SECRET: "s".repeat(32) }).signingSecret).toBe("s".repeat(32));
  });

  it("ignores junk numbers", () => {
    const s = readFormSettings({ FORM_RATE_LIMIT_PER_MINUTE: "-3", FORM_RATE_LIMIT_PER_DAY: "lots", FORM_MIN_FILL_SECONDS: "0" });
    expect(s.defaultRateLimits).toEqual({ perMinute: 5, perDay: 50 });
    expect(s.minFillMs).toBe(0);
  });

  it("lets a form's own rateLimit win over the defaults", () => {
    const s = readFormSettings({ FORM_RATE_LIMIT_PER_MINUTE: "9" });
    expect(rateLimitsFor(contactForm, s)).toEqual({ perMinute: 9, perDay: 50 });
    expect(rateLimitsFor({ ...contactForm, rateLimit: { perMinute: 1, perDay: 2 } }, s)).toEqual({ perMinute: 1, perDay: 2 });
  });

  it("adds FORM_ALLOWED_ORIGINS per form and drops anything that is not an exact origin", () => {
    const map = parseExtraOrigins("contact=https://a.example,http://127.0.0.1:9000,https://b.example/path newsletter=* junk");
    expect(map.get("contact")).toEqual(["https://a.example", "http://127.0.0.1:9000"]);
    expect(map.has("newsletter")).toBe(false);
    const s = readFormSettings({ FORM_ALLOWED_ORIGINS: "contact=https://a.example" });
    expect(allowedOriginsFor(contactForm, s)).toEqual(["https://a.example"]);
  });
});

describe("checkOrigin and preflight", () => {
  const req = (origin: string | null) =>
    new Request("https://forms.example/api/forms/contact/submissions", {
      method: "POST",
      headers: origin ? { Origin: origin } : {},
    });
  it("allows no Origin, the same origin and listed origins; refuses the rest and null", () => {
    expect(checkOrigin(req(null), [])).toEqual({ ok: true, corsOrigin: null });
    expect(checkOrigin(req("https://forms.example"), [])).toEqual({ ok: true, corsOrigin: null });
    expect(checkOrigin(req("https://a.example"), ["https://a.example"])).toEqual({ ok: true, corsOrigin: "https://a.example" });
    expect(checkOrigin(req("https://a.example.evil"), ["https://a.example"]).ok).toBe(false);
    expect(checkOrigin(req("null"), ["https://a.example"]).ok).toBe(false);
  });

  it("answers a preflight only for a listed origin asking for POST", () => {
    const pre = (origin: string, method: string) =>
      answerPreflight(
        new Request("https://forms.example/x", { method: "OPTIONS", headers: { Origin: origin, "Access-Control-Request-Method": method } }),
        ["https://a.example"],
      );
    expect(pre("https://a.example", "POST")?.status).toBe(204);
    expect(pre("https://a.example", "DELETE")).toBeNull();
    expect(pre("https://b.example", "POST")).toBeNull();
  });
});

describe("readIdempotencyKey", () => {
  const req = (key?: string) =>
    new Request("https://x.test", { method: "POST", headers: key === undefined ? {} : { "Idempotency-Key": key } });
  it("prefers the header, then a UUID _gp_sid, else no key", () => {
    const sid = "123e4567-e89b-12d3-a456-426614174000";
    expect(readIdempotencyKey(req("abc"), { _gp_sid: sid })).toEqual({ ok: true, key: "abc" });
    expect(readIdempotencyKey(req(), { _gp_sid: sid })).toEqual({ ok: true, key: sid });
    expect(readIdempotencyKey(req(), {})).toEqual({ ok: true, key: null });
  });
  it("refuses keys that are too long, blank, non-ASCII, or a sid that is not a UUID", () => {
    for (const key of ["x".repeat(256), " ", "clé"]) expect(readIdempotencyKey(req(key), {}).ok).toBe(false);
    expect(readIdempotencyKey(req(), { _gp_sid: "1" }).ok).toBe(false);
    expect(readIdempotencyKey(req(), { _gp_sid: { a: 1 } }).ok).toBe(false);
  });
  it("recognises D1's primary-key refusal of a second key row", () => {
    expect(
      isKeyConflict(new Error("D1_ERROR: UNIQUE constraint failed: submissions.form_id, submissions.idempotency_key: SQLITE_CONSTRAINT")),
    ).toBe(true);
    expect(isKeyConflict(new Error("UNIQUE constraint failed: submissions.id"))).toBe(false);
  });
});

describe("wantsJson", () => {
  const req = (headers: Record<string, string>) => new Request("https://x.test", { method: "POST", headers });
  it("answers JSON to JSON bodies, JSON Accept and fetch(); HTML to a form navigation and plain curl", () => {
    expect(wantsJson(req({ "content-type": "application/json" }))).toBe(true);
    expect(wantsJson(req({ "content-type": "multipart/form-data; boundary=x", accept: "application/json" }))).toBe(true);
    expect(wantsJson(req({ "content-type": "application/x-www-form-urlencoded", "sec-fetch-mode": "cors" }))).toBe(true);
    expect(wantsJson(req({ "content-type": "application/x-www-form-urlencoded", "sec-fetch-mode": "navigate" }))).toBe(false);
    expect(wantsJson(req({ "content-type": "application/x-www-form-urlencoded" }))).toBe(false);
  });
});

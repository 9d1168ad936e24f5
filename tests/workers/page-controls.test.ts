import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { appFetch, at, clearTables, countRows, formPost, signedStamp, sink, sinkEnv, standin, standinToken, testEnv } from "./helpers";
import { expectConsoleErrors } from "../support/fail-on-console";

// The abuse controls of Gatepost's own form pages: the hidden trap and the signed timestamp.
const VALID = { name: "Ada Lovelace", email: "ada@example.org", message: "Hello from the analytical engine." };
// The app's clock, stopped, where a test asserts when a stamp was issued.
const NOW = Date.UTC(2026, 10, 22, 12, 0, 30);

beforeEach(async () => {
  await standin.reset();
  await sink.reset();
  await clearTables();
});

async function onlyRow() {
  const { results } = await env.DB.prepare("SELECT * FROM submissions").all<Record<string, string>>();
  expect(results).toHaveLength(1);
  return results[0];
}

describe("the form page", () => {
  it("renders a signed stamp, a submission id and a trap field, never cached", async () => {
    const response = await appFetch(new Request("http://localhost/f/contact"));
    expect(response.headers.get("Cache-Control")).toBe("private, no-store");
    const html = await response.text();
    expect(html).toMatch(/name="_gp_ts"[^>]* value="v2\.\d{13}\.[A-Za-z0-9_-]{43}"/);
    expect(html).toMatch(/name="_gp_sid"[^>]* value="[0-9a-f-]{36}"/);
    expect(html).toMatch(
      /<div class="hp" aria-hidden="true"><label for="_gp_hp">Leave this field empty<\/label><input type="text" id="_gp_hp" name="_gp_hp" tabindex="-1" autoComplete="off"/,
    );
  });

  it("renders the newsletter from its schema and lists both public forms on /", async () => {
    const page = await (await appFetch(new Request("http://localhost/f/newsletter"))).text();
    expect(page).toContain("<h1>Newsletter</h1>");
    expect(page).toContain('type="email"');
    expect(page).toMatch(/type="checkbox" id="field-consent" name="consent" required=""/);
    const home = await (await appFetch(new Request("http://localhost/"))).text();
    expect(home).toContain('href="/f/contact"');
    expect(home).toContain('href="/f/newsletter"');
  });
});

describe("posts from the form page", () => {
  it("accepts a human post (stamp old enough, trap empty) with status accepted", async () => {
    const response = await appFetch(formPost("/f/contact", { ...VALID, _gp_hp: "", "cf-turnstile-response": standinToken() }), sinkEnv());
    expect(response.status).toBe(303);
    const row = await onlyRow();
    expect(row.status).toBe("accepted");
    expect(row.quarantine_reason).toBeNull();
    expect(await countRows("deliveries")).toBe(1);
  });

  it.each([
    ["the trap is filled", { _gp_hp: "buy now" }, {}, "honeypot_filled"],
    ["the stamp is missing", { _gp_ts: "" }, {}, "timestamp_missing"],
    [
      "the stamp is forged",
      { _gp_ts: signedStamp("contact", Date.now() - 60_000, "", "not-the-server-secret-0123456789abcdef") },
      {},
      "timestamp_forged",
    ],
    ["the stamp is for another form", { _gp_ts: signedStamp("newsletter", Date.now() - 60_000) }, {}, "timestamp_forged"],
    ["the stamp is garbage", { _gp_ts: "v1.123.abc" }, {}, "timestamp_forged"],
    ["it was sent faster than a person types", {}, { stampAgeMs: 500 }, "timestamp_too_fast"],
  ])("gives a bot the human answer and quarantines it when %s", async (_label, extra, options, reason) => {
    const response = await appFetch(
      formPost("/f/contact", { ...VALID, ...extra, "cf-turnstile-response": standinToken() }, {}, options),
      sinkEnv(),
    );
    expect(response.status).toBe(303);
    const row = await onlyRow();
    expect(response.headers.get("location")).toBe(`/f/contact/thanks/${row.id}`);
    expect(row.status).toBe("quarantined");
    expect(row.quarantine_reason).toBe(reason);
    // Quarantined submissions are never queued for delivery, with a destination configured.
    expect(await countRows("deliveries")).toBe(0);
    expect((await sink.state()).requests).toHaveLength(0);
    // The thank-you page looks the same as for a person.
    const thanks = await appFetch(new Request(`http://localhost/f/contact/thanks/${row.id}`));
    expect(thanks.status).toBe(200);
  });

  it("still makes a bot pass Turnstile: a failed captcha stores nothing and looks like a person's refusal", async () => {
    const appEnv = testEnv({ TURNSTILE_SECRET_KEY: "2x0000000000000000000000000000000AA" });
    const response = await appFetch(formPost("/f/contact", { ...VALID, _gp_hp: "x", "cf-turnstile-response": standinToken() }), appEnv);
    expect(response.status).toBe(400);
    expect(response.headers.get("Gatepost-Error-Code")).toBe("turnstile_invalid_token");
    expect(await countRows("submissions")).toBe(0);
  });

  it("fails closed with 500 when FORM_SIGNING_SECRET is missing or too short", async () => {
    for (const secret of ["", "short"]) {
      const response = await appFetch(
        formPost("/f/contact", { ...VALID, "cf-turnstile-response": standinToken() }),
        testEnv({ FORM_SIGNING_SECRET: secret }),
      );
      expect(response.status).toBe(500);
      expect(response.headers.get("Gatepost-Error-Code")).toBe("form_signing_secret_missing");
    }
    expect(await standin.calls()).toHaveLength(0);
    expect(await countRows("submissions")).toBe(0);
  });

  it("refuses a cross-origin post to the page with 403", async () => {
    const response = await appFetch(
      formPost("/f/contact", { ...VALID, "cf-turnstile-response": standinToken() }, { Origin: "https://evil.example" }),
    );
    expect(response.status).toBe(403);
    expect(response.headers.get("Gatepost-Error-Code")).toBe("origin_not_allowed");
    expect(await countRows("submissions")).toBe(0);
  });

  it("treats a double send of one rendered form (same _gp_sid) as one submission", async () => {
    const sid = crypto.randomUUID();
    const first = await appFetch(formPost("/f/contact", { ...VALID, _gp_sid: sid, "cf-turnstile-response": standinToken() }));
    const second = await appFetch(formPost("/f/contact", { ...VALID, _gp_sid: sid, "cf-turnstile-response": standinToken() }));
    expect(second.status).toBe(303);
    expect(second.headers.get("location")).toBe(first.headers.get("location"));
    expect(await countRows("submissions")).toBe(1);
  });

  it("refuses changed answers under a sent form's id with 422, and re-renders it as a new submission", async () => {
    const sid = crypto.randomUUID();
    const first = await appFetch(formPost("/f/contact", { ...VALID, _gp_sid: sid, "cf-turnstile-response": standinToken() }));
    expect(first.status).toBe(303);
    const changed = { ...VALID, message: "Sent again from the back button, with a change." };
    const again = await appFetch(formPost("/f/contact", { ...changed, _gp_sid: sid, "cf-turnstile-response": standinToken() }));
    expect(again.status).toBe(422);
    expect(again.headers.get("Gatepost-Error-Code")).toBe("idempotency_key_reused");
    const html = await again.text();
    expect(html).not.toContain(first.headers.get("location")!.split("/").pop());
    const stamp = /name="_gp_ts"[^>]* value="([^"]+)"/.exec(html)![1];
    const fresh = /name="_gp_sid"[^>]* value="([^"]+)"/.exec(html)![1];
    expect(fresh).not.toBe(sid);
    const third = await appFetch(
      formPost("/f/contact", { ...changed, _gp_ts: stamp, _gp_sid: fresh, "cf-turnstile-response": standinToken() }),
    );
    expect(third.status).toBe(303);
    expect(third.headers.get("location")).not.toBe(first.headers.get("location"));
    const statuses = (await env.DB.prepare("SELECT status FROM submissions").all<{ status: string }>()).results.map((r) => r.status);
    expect(statuses).toEqual(["accepted", "accepted"]);
  });

  it("keeps the first render's stamp and id on the page after a refused post", async () => {
    const sid = crypto.randomUUID();
    const stamp = signedStamp("contact", Date.now() - 20_000, sid);
    const response = await appFetch(formPost("/f/contact", { ...VALID, email: "bad", _gp_ts: stamp, _gp_sid: sid }));
    expect(response.status).toBe(422);
    expect(response.headers.get("Gatepost-Error-Code")).toBe("validation_failed");
    const html = await response.text();
    expect(html).toContain(`value="${stamp}"`);
    expect(html).toContain(`value="${sid}"`);
  });

  it("refuses a stamp over 24 hours old with form_expired: answers kept, a fresh stamp, no token spent", async () => {
    const now = at(NOW);
    const response = await appFetch(
      formPost(
        "/f/contact",
        { ...VALID, "cf-turnstile-response": standinToken() },
        {},
        { stampAgeMs: 24 * 3_600_000 + 60_000, nowMs: NOW },
      ),
      sinkEnv(),
      { now },
    );
    expect(response.status).toBe(400);
    expect(response.headers.get("Gatepost-Error-Code")).toBe("form_expired");
    const html = await response.text();
    expect(html).toContain(VALID.message);
    const stamp = /name="_gp_ts"[^>]* value="([^"]+)"/.exec(html)?.[1];
    const sid = /name="_gp_sid"[^>]* value="([^"]+)"/.exec(html)?.[1];
    expect(Number(stamp?.split(".")[1])).toBeGreaterThan(NOW - 3_600_000);
    expect(await standin.calls()).toHaveLength(0);
    expect(await countRows("submissions")).toBe(0);
    // Sent again at once from the re-rendered page, it is accepted as a person's post.
    const again = await appFetch(
      formPost("/f/contact", { ...VALID, _gp_ts: stamp!, _gp_sid: sid!, "cf-turnstile-response": standinToken() }),
      sinkEnv(),
      { now },
    );
    expect(again.status).toBe(303);
    expect((await onlyRow()).status).toBe("accepted");
  });

  it("gives a stamp that was never validly signed a fresh stamp that is not dated back: the fill time starts anew", async () => {
    // Shaped like a stamp of the version before, which is taken as expired, but signed by nobody.
    const junk = `v1.${NOW - 60_000}.${"A".repeat(43)}`;
    const now = at(NOW);
    const response = await appFetch(
      formPost("/f/contact", { ...VALID, _gp_ts: junk, "cf-turnstile-response": standinToken() }),
      sinkEnv(),
      {
        now,
      },
    );
    expect(response.status).toBe(400);
    expect(response.headers.get("Gatepost-Error-Code")).toBe("form_expired");
    const html = await response.text();
    const stamp = /name="_gp_ts"[^>]* value="([^"]+)"/.exec(html)![1];
    const sid = /name="_gp_sid"[^>]* value="([^"]+)"/.exec(html)![1];
    // Issued now, not dated back by the minimum fill time.
    expect(Number(stamp.split(".")[1])).toBe(NOW);
    // Sent at once with that stamp, it is a bot's haste: quarantined, never delivered.
    const again = await appFetch(
      formPost("/f/contact", { ...VALID, _gp_ts: stamp, _gp_sid: sid, "cf-turnstile-response": standinToken() }),
      sinkEnv(),
      { now },
    );
    expect(again.status).toBe(303);
    expect(await onlyRow()).toMatchObject({ status: "quarantined", quarantine_reason: "timestamp_too_fast" });
    expect(await countRows("deliveries")).toBe(0);
  });

  it("keeps a page post's stamp id as its key: an Idempotency-Key header cannot make one harvested stamp buy more", async () => {
    const sid = crypto.randomUUID();
    const stamp = signedStamp("contact", Date.now() - 60_000, sid);
    const post = (fields: Record<string, string>, key: string) =>
      appFetch(
        formPost(
          "/f/contact",
          { ...fields, _gp_ts: stamp, _gp_sid: sid, "cf-turnstile-response": standinToken() },
          { "Idempotency-Key": key },
        ),
        sinkEnv(),
      );
    const first = await post(VALID, "harvested-1");
    expect(first.status).toBe(303);
    // The same answers under another header are the same submission; other answers are refused.
    const same = await post(VALID, "harvested-2");
    expect(same.status).toBe(303);
    expect(same.headers.get("location")).toBe(first.headers.get("location"));
    const other = await post({ ...VALID, message: "Another message under the same stamp." }, "harvested-3");
    expect(other.status).toBe(422);
    expect(other.headers.get("Gatepost-Error-Code")).toBe("idempotency_key_reused");
    expect((await onlyRow()).idempotency_key).toBe(sid);
  });

  it("binds the stamp to its render's submission id: the stamp with another id is a bot's", async () => {
    const sid = crypto.randomUUID();
    const stamp = signedStamp("contact", Date.now() - 60_000, sid);
    const response = await appFetch(
      formPost("/f/contact", { ...VALID, _gp_ts: stamp, _gp_sid: crypto.randomUUID(), "cf-turnstile-response": standinToken() }),
      sinkEnv(),
    );
    expect(response.status).toBe(303);
    expect(await onlyRow()).toMatchObject({ status: "quarantined", quarantine_reason: "timestamp_forged" });
  });

  // GHSA-84g9-w2xq-vcv6: Remix before 2.17.5 let a cross-site PUT, PATCH or DELETE through (ADR 055).
  it("refuses a cross-site PUT, PATCH or DELETE to a page before Remix", async () => {
    for (const method of ["PUT", "PATCH", "DELETE"]) {
      const response = await appFetch(new Request("http://localhost/f/contact", { method, headers: { Origin: "https://evil.example" } }));
      expect([method, response.status, response.headers.get("Gatepost-Error-Code")]).toEqual([method, 403, "origin_not_allowed"]);
    }
  });

  it("answers wrong methods with 405 and a code", async () => {
    for (const method of ["PUT", "DELETE", "PATCH"]) {
      const response = await appFetch(new Request("http://localhost/f/contact", { method }));
      expect(response.status, method).toBe(405);
      expect(response.headers.get("Gatepost-Error-Code")).toBe("method_not_allowed");
    }
    // Remix logs the OPTIONS request it refuses with 405 (an ErrorResponse it raises itself).
    const logged = expectConsoleErrors(/Invalid request method "OPTIONS"/);
    const options = await appFetch(new Request("http://localhost/f/contact", { method: "OPTIONS" }));
    expect(logged()).toHaveLength(1);
    expect(options.status).toBe(405);
    expect(options.headers.get("Gatepost-Error-Code")).toBe("method_not_allowed");
    const missing = await appFetch(new Request("http://localhost/f/nope"));
    expect(missing.status).toBe(404);
    expect(missing.headers.get("Gatepost-Error-Code")).toBe("form_not_found");
  });
});

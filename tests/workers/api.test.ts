import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { apiPost, appFetch, clearTables, countingDb, countRows, sink, sinkEnv, standin, standinToken, testEnv } from "./helpers";

const VALID = { name: "Ada Lovelace", email: "ada@example.org", message: "Hello from the analytical engine." };
const SITE = "https://customer.example";
const withSite = () => testEnv({ FORM_ALLOWED_ORIGINS: `contact=${SITE}` });

beforeEach(async () => {
  await standin.reset();
  await sink.reset();
  await clearTables();
});

async function rows() {
  return (await env.DB.prepare("SELECT * FROM submissions ORDER BY received_at").all<Record<string, string>>()).results;
}

describe("POST /api/forms/:formId/submissions", () => {
  it("takes JSON and answers 201 { id, status } with RateLimit headers", async () => {
    const response = await appFetch(apiPost("contact", { ...VALID, "cf-turnstile-response": standinToken() }));
    expect(response.status).toBe(201);
    const body = await response.json<{ id: string; status: string }>();
    expect(body.status).toBe("accepted");
    expect(response.headers.get("RateLimit")).toMatch(/^"(?:minute|day)";r=\d+;t=\d+$/);
    expect(response.headers.get("RateLimit-Policy")).toMatch(/^"minute";q=\d+;w=60, "day";q=\d+;w=86400$/);
    expect(response.headers.get("Vary")).toBe("Origin");
    const [row] = await rows();
    expect(row.id).toBe(body.id);
    expect(row.status).toBe("accepted");
    expect(JSON.parse(row.fields)).toEqual(VALID);
  });

  it("takes URL-encoded and multipart bodies from fetch callers", async () => {
    const encoded = await appFetch(
      apiPost(
        "contact",
        { ...VALID, "cf-turnstile-response": standinToken() },
        {
          type: "application/x-www-form-urlencoded",
          headers: { Accept: "application/json" },
        },
      ),
    );
    expect(encoded.status).toBe(201);
    const form = new FormData();
    for (const [k, v] of Object.entries({ ...VALID, "cf-turnstile-response": standinToken() })) form.set(k, v);
    const multipart = new Request("http://localhost/api/forms/contact/submissions", {
      method: "POST",
      body: form,
      headers: { "Sec-Fetch-Mode": "cors", "CF-Connecting-IP": "198.51.100.20" },
    });
    expect((await appFetch(multipart)).status).toBe(201);
    expect(await countRows("submissions")).toBe(2);
  });

  it("redirects a plain HTML post with 303 to the thank-you page (no redirectUrl set)", async () => {
    const response = await appFetch(
      apiPost(
        "contact",
        { ...VALID, "cf-turnstile-response": standinToken() },
        {
          type: "application/x-www-form-urlencoded",
          headers: { "Sec-Fetch-Mode": "navigate", Origin: SITE },
        },
      ),
      withSite(),
    );
    expect(response.status).toBe(303);
    const [row] = await rows();
    expect(response.headers.get("location")).toBe(`/f/contact/thanks/${row.id}`);
  });

  it("answers invalid fields with problem+json, per-field errors, and never spends the token", async () => {
    const response = await appFetch(
      apiPost("contact", { ...VALID, email: ["a@b.c"], message: "short", "cf-turnstile-response": standinToken() }),
    );
    expect(response.status).toBe(422);
    expect(response.headers.get("content-type")).toContain("application/problem+json");
    expect(response.headers.get("Gatepost-Error-Code")).toBe("validation_failed");
    const body = await response.json<{ code: string; status: number; errors: Array<{ field: string; detail: string }> }>();
    expect(body.code).toBe("validation_failed");
    expect(body.status).toBe(422);
    expect(body.errors.map((e) => e.field).sort()).toEqual(["email", "message"]);
    expect(await standin.calls()).toHaveLength(0);
    expect(await countRows("submissions")).toBe(0);
  });

  it("shows a readable error page to a plain HTML post that is refused", async () => {
    const response = await appFetch(
      apiPost(
        "contact",
        { ...VALID, email: "nope" },
        { type: "application/x-www-form-urlencoded", headers: { "Sec-Fetch-Mode": "navigate" } },
      ),
    );
    expect(response.status).toBe(422);
    expect(response.headers.get("content-type")).toContain("text/html");
    const html = await response.text();
    expect(html).toContain("Contact us: not sent");
    expect(html).toContain("<strong>E-mail address:</strong> E-mail address must be a valid e-mail address");
    expect(html).toContain("<code>validation_failed</code>");
    expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
  });

  it("drops unknown fields and caps every field", async () => {
    const ok = await appFetch(apiPost("contact", { ...VALID, admin: true, extra: "x", "cf-turnstile-response": standinToken() }));
    expect(ok.status).toBe(201);
    expect(Object.keys(JSON.parse((await rows())[0].fields)).sort()).toEqual(["email", "message", "name"]);
    const long = await appFetch(apiPost("contact", { ...VALID, name: "n".repeat(101) }));
    expect((await long.json<{ errors: Array<{ field: string }> }>()).errors[0].field).toBe("name");
  });

  it("answers 404 form_not_found and 405 for wrong methods, each with a catalogue code", async () => {
    const missing = await appFetch(apiPost("nope", VALID));
    expect(missing.status).toBe(404);
    expect((await missing.json<{ code: string }>()).code).toBe("form_not_found");
    for (const method of ["GET", "PUT", "PATCH", "DELETE"]) {
      const response = await appFetch(new Request("http://localhost/api/forms/contact/submissions", { method }));
      expect(response.status, method).toBe(405);
      expect(response.headers.get("Allow")).toBe("POST, OPTIONS");
      expect((await response.json<{ code: string }>()).code).toBe("method_not_allowed");
    }
  });

  it("uses one D1 round trip to accept, idempotency and outbox included, and one for a replay", async () => {
    const counted = countingDb(env.DB);
    const appEnv = { ...sinkEnv(), DB: counted.db };
    let atResponse: string[][] = [];
    const send = () =>
      appFetch(
        apiPost("contact", { ...VALID, "cf-turnstile-response": standinToken() }, { headers: { "Idempotency-Key": "order-1" } }),
        appEnv,
        { onResponse: () => (atResponse = counted.log()) },
      );
    const first = await send();
    expect(first.status).toBe(201);
    // One batch: count the hit, insert the submission with its key (guarded), its outbox row, and read
    // back the key's holder. Anything after it is the first delivery, which waitUntil runs after the answer.
    expect(atResponse[0]).toEqual(expect.arrayContaining(["rate_limits", "submissions", "deliveries"]));
    expect(atResponse.slice(1).every((trip) => !trip.includes("submissions") && !trip.includes("rate_limits"))).toBe(true);
    expect(await countRows("deliveries")).toBe(1);
    const before = counted.trips();
    const again = await send();
    expect(again.status).toBe(201);
    expect(atResponse.slice(before)).toHaveLength(1);
    expect(await countRows("deliveries")).toBe(1);
  });
});

describe("idempotency", () => {
  it("answers a repeat with the same Idempotency-Key with the first answer, storing and delivering nothing new", async () => {
    const token = standinToken();
    const send = () =>
      appFetch(apiPost("contact", { ...VALID, "cf-turnstile-response": token }, { headers: { "Idempotency-Key": "k-123" } }), sinkEnv());
    const first = await send();
    const repeat = await send();
    expect(repeat.status).toBe(201);
    expect(await repeat.json()).toEqual(await first.json());
    expect(repeat.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await countRows("submissions")).toBe(1);
    expect((await env.DB.prepare("SELECT idempotency_key FROM submissions").all()).results).toEqual([{ idempotency_key: "k-123" }]);
    expect(await countRows("deliveries")).toBe(1);
    expect((await sink.state()).unique).toHaveLength(1);
    // The provider goes first (ADR 012): it says the repeat's token is spent, and only then is the key
    // looked up, so the spent token does not turn the repeat into a refusal.
    expect((await standin.calls()).map((c) => c.response)).toEqual([token, token]);
  });

  it("counts a keyed repeat against the rate limit: over it, a known key gets 429 too", async () => {
    const appEnv = testEnv({ FORM_RATE_LIMIT_PER_MINUTE: "2" });
    const token = standinToken();
    const send = (key: string, t = standinToken()) =>
      appFetch(apiPost("contact", { ...VALID, "cf-turnstile-response": t }, { headers: { "Idempotency-Key": key } }), appEnv);
    const first = await send("lost-answer", token);
    expect(first.status).toBe(201);
    const repeat = await send("lost-answer");
    expect(repeat.status).toBe(201);
    expect(await repeat.json()).toEqual(await first.json());
    for (const over of [await send("lost-answer"), await send("lost-answer", token), await send("another")]) {
      expect(over.status).toBe(429);
      expect(over.headers.get("Retry-After")).toMatch(/^\d+$/);
      expect(over.headers.get("RateLimit")).toBe(`"minute";r=0;t=${over.headers.get("Retry-After")}`);
      expect((await over.json<{ id?: string }>()).id).toBeUndefined();
    }
    expect(await countRows("submissions")).toBe(1);
  });

  it("binds a key to its fields: another body under a used key gets 422 and never the first id", async () => {
    const token = standinToken();
    const first = await appFetch(
      apiPost("contact", { ...VALID, "cf-turnstile-response": token }, { headers: { "Idempotency-Key": "victim-key" } }),
    );
    const { id } = await first.json<{ id: string }>();
    const attempts = [
      // Someone else's submission under the victim's key, with a fresh token and with the spent one.
      { ...VALID, message: "Squatting someone else's key.", "cf-turnstile-response": standinToken() },
      { ...VALID, message: "Squatting someone else's key.", "cf-turnstile-response": token },
      { ...VALID, name: "Ada  Lovelace ", "cf-turnstile-response": standinToken() },
    ];
    for (const body of attempts) {
      const response = await appFetch(apiPost("contact", body, { headers: { "Idempotency-Key": "victim-key" } }));
      const text = await response.text();
      expect(response.status, text).toBe(422);
      expect(response.headers.get("Gatepost-Error-Code")).toBe("idempotency_key_reused");
      expect(text).not.toContain(id);
    }
    // An empty body under a known key is just an invalid form: it reveals nothing either.
    const empty = await appFetch(apiPost("contact", {}, { headers: { "Idempotency-Key": "victim-key" } }));
    expect(empty.status).toBe(422);
    expect(empty.headers.get("Gatepost-Error-Code")).toBe("validation_failed");
    expect(await empty.text()).not.toContain(id);
    expect(await countRows("submissions")).toBe(1);
    // A key is bound to the values as stored (trimmed): "Ada  Lovelace" keeps its inner spaces, so differs.
    expect((await rows()).map((r) => r.id)).toEqual([id]);
  });

  it("keeps one row when two requests with the same key race", async () => {
    const send = () =>
      appFetch(apiPost("contact", { ...VALID, "cf-turnstile-response": standinToken() }, { headers: { "Idempotency-Key": "race" } }));
    const answers = await Promise.all([send(), send(), send()]);
    const ids = await Promise.all(answers.map(async (r) => (await r.json<{ id: string }>()).id));
    expect(answers.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(new Set(ids).size).toBe(1);
    expect(await countRows("submissions")).toBe(1);
  });

  it("takes the rendered form's _gp_sid as the key, and scopes keys per form", async () => {
    const sid = crypto.randomUUID();
    const send = () => appFetch(apiPost("contact", { ...VALID, _gp_sid: sid, "cf-turnstile-response": standinToken() }));
    const a = await (await send()).json<{ id: string }>();
    const b = await (await send()).json<{ id: string }>();
    expect(b.id).toBe(a.id);
    const newsletter = await appFetch(
      apiPost("newsletter", {
        email: "ada@example.org",
        consent: true,
        _gp_sid: sid,
        "cf-turnstile-response": standinToken({ action: "newsletter" }),
      }),
    );
    expect(newsletter.status).toBe(201);
    expect(await countRows("submissions")).toBe(2);
  });

  it("refuses a malformed key with 400 idempotency_key_invalid", async () => {
    for (const headers of [{ "Idempotency-Key": "x".repeat(256) }, { "Idempotency-Key": "  " }]) {
      const response = await appFetch(apiPost("contact", { ...VALID, "cf-turnstile-response": standinToken() }, { headers }));
      expect(response.status).toBe(400);
      expect((await response.json<{ code: string }>()).code).toBe("idempotency_key_invalid");
    }
    const badSid = await appFetch(apiPost("contact", { ...VALID, _gp_sid: ["a"] }));
    expect((await badSid.json<{ code: string }>()).code).toBe("idempotency_key_invalid");
    expect(await countRows("submissions")).toBe(0);
  });
});

describe("CORS and the origin check", () => {
  it("answers a preflight from an allowed origin: that origin only, Vary: Origin, no credentials", async () => {
    const response = await appFetch(
      new Request("http://localhost/api/forms/contact/submissions", {
        method: "OPTIONS",
        headers: { Origin: SITE, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type" },
      }),
      withSite(),
    );
    expect(response.status).toBe(204);
    expect(response.headers.get("Access-Control-Allow-Origin")).toBe(SITE);
    expect(response.headers.get("Access-Control-Allow-Methods")).toBe("POST");
    expect(response.headers.get("Access-Control-Allow-Headers")).toContain("Content-Type");
    expect(response.headers.get("Vary")).toContain("Origin");
    expect(response.headers.get("Access-Control-Allow-Credentials")).toBeNull();
  });

  it("refuses the preflight of an origin not on the list", async () => {
    const response = await appFetch(
      new Request("http://localhost/api/forms/contact/submissions", {
        method: "OPTIONS",
        headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "POST" },
      }),
      withSite(),
    );
    expect(response.status).toBe(403);
    expect(response.headers.get("Access-Control-Allow-Origin")).toBeNull();
    expect((await response.json<{ code: string }>()).code).toBe("origin_not_allowed");
  });

  it("answers an allowed cross-origin POST with its origin in Access-Control-Allow-Origin", async () => {
    const response = await appFetch(
      apiPost("contact", { ...VALID, "cf-turnstile-response": standinToken() }, { headers: { Origin: SITE } }),
      withSite(),
    );
    expect(response.status).toBe(201);
    expect(response.headers.get("Access-Control-Allow-Origin")).toBe(SITE);
    expect(response.headers.get("Access-Control-Allow-Credentials")).toBeNull();
  });

  it("refuses a POST from another origin with 403 before the rate limit, the schema or the provider", async () => {
    for (const origin of ["https://evil.example", "null"]) {
      const response = await appFetch(
        apiPost("contact", { ...VALID, "cf-turnstile-response": standinToken() }, { headers: { Origin: origin } }),
        withSite(),
      );
      expect(response.status).toBe(403);
      expect((await response.json<{ code: string }>()).code).toBe("origin_not_allowed");
    }
    expect(await standin.calls()).toHaveLength(0);
    expect(await countRows("submissions")).toBe(0);
    expect(await countRows("rate_limits")).toBe(0);
  });
});

describe("hostile bodies", () => {
  it("checks the origin before the body: a foreign post with a junk or huge body gets 403, unread", async () => {
    for (const body of ["{ not json", "a=1&".repeat(16_000)]) {
      const response = await appFetch(
        apiPost("contact", body, { type: "application/json; charset=utf-8", headers: { Origin: "https://evil.example" } }),
        withSite(),
      );
      expect(response.status).toBe(403);
      expect(response.headers.get("Gatepost-Error-Code")).toBe("origin_not_allowed");
    }
  });

  it("refuses 64 KiB of one repeated key with 413 too_many_fields, before the schema or the provider", async () => {
    const response = await appFetch(
      apiPost("contact", "name=x&".repeat(9_000), { type: "application/x-www-form-urlencoded; charset=utf-8" }),
    );
    expect(response.status).toBe(413);
    expect(response.headers.get("Gatepost-Error-Code")).toBe("too_many_fields");
    expect(await standin.calls()).toHaveLength(0);
  });

  it("refuses invalid UTF-8 (%FF), lone surrogates and control characters with 400 invalid_text", async () => {
    const token = standinToken();
    // Raw bodies: with a charset parameter apiPost sends the string as it is.
    const bodies: Array<[string, string]> = [
      [
        `name=Ada&email=ada%40example.org&message=caf%FF+au+lait&cf-turnstile-response=${token}`,
        "application/x-www-form-urlencoded; charset=utf-8",
      ],
      [
        `{"name":"Ada","email":"ada@example.org","message":"half \\ud83d a smile","cf-turnstile-response":"${token}"}`,
        "application/json; charset=utf-8",
      ],
      [
        `{"name":"Ada\\u0000","email":"ada@example.org","message":"A NUL in the name.","cf-turnstile-response":"${token}"}`,
        "application/json; charset=utf-8",
      ],
    ];
    for (const [body, type] of bodies) {
      const response = await appFetch(apiPost("contact", body, { type }));
      expect(response.status, body).toBe(400);
      expect(response.headers.get("Gatepost-Error-Code")).toBe("invalid_text");
    }
    expect(await countRows("submissions")).toBe(0);
    // The token was never spent on a body that cannot be kept.
    expect(await standin.calls()).toHaveLength(0);
  });

  it("stores a lone CR as a newline, so every export reads as plain lines", async () => {
    const response = await appFetch(
      apiPost("contact", { ...VALID, message: "line one\rline two\r\nline three", "cf-turnstile-response": standinToken() }),
    );
    expect(response.status).toBe(201);
    const [row] = await rows();
    expect(JSON.parse(row.fields).message).toBe("line one\nline two\nline three");
  });

  it("refuses a multipart body with a file part with 415 file_not_accepted", async () => {
    const form = new FormData();
    for (const [k, v] of Object.entries({ ...VALID, "cf-turnstile-response": standinToken() })) form.set(k, v);
    form.set("attachment", new File(["%PDF-1.7"], "cv.pdf", { type: "application/pdf" }));
    const response = await appFetch(
      new Request("http://localhost/api/forms/contact/submissions", {
        method: "POST",
        body: form,
        headers: { Accept: "application/json" },
      }),
    );
    expect(response.status).toBe(415);
    expect((await response.json<{ code: string }>()).code).toBe("file_not_accepted");
    expect(await countRows("submissions")).toBe(0);
  });
});

describe("plain honeypot on API posts", () => {
  it("gives a bot that fills _gotcha the human answer and quarantines it, never queued or delivered", async () => {
    const response = await appFetch(
      apiPost("contact", { ...VALID, _gotcha: "http://spam.example", "cf-turnstile-response": standinToken() }),
      sinkEnv(),
    );
    expect(response.status).toBe(201);
    const body = await response.json<{ id: string; status: string }>();
    expect(body.status).toBe("accepted");
    const [row] = await rows();
    expect(row.id).toBe(body.id);
    expect(row.status).toBe("quarantined");
    expect(row.quarantine_reason).toBe("honeypot_filled");
    expect(await countRows("deliveries")).toBe(0);
    expect((await sink.state()).requests).toHaveLength(0);
  });
});

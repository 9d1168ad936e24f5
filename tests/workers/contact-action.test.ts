import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { appFetch, countRows, formPost, standin, standinToken, testEnv } from "./helpers";
import { expectConsoleErrors } from "../support/fail-on-console";

const VALID = { name: "Ada Lovelace", email: "ada@example.org", message: "Hello from the analytical engine." };

beforeEach(async () => {
  await standin.reset();
  await env.DB.exec("DELETE FROM submissions");
});

describe("POST /f/contact in workerd with real D1", () => {
  it("stores exactly one row for a valid submission and redirects to the thank-you view", async () => {
    const response = await appFetch(formPost("/f/contact", { ...VALID, "cf-turnstile-response": standinToken() }));
    expect(response.status).toBe(303);
    const location = response.headers.get("location") ?? "";
    expect(location).toMatch(/^\/f\/contact\/thanks\/[0-9a-f-]{36}$/);
    expect(await countRows("submissions")).toBe(1);
    const row = await env.DB.prepare("SELECT * FROM submissions").first<Record<string, string>>();
    expect(row?.form_id).toBe("contact");
    expect(JSON.parse(row!.fields)).toEqual(VALID);
    expect(row?.verify_hostname).toBe("localhost");
    expect(row?.verify_action).toBe("contact");
    expect(row?.verify_challenge_ts).toMatch(/^\d{4}-\d\d-\d\dT/);

    const thanks = await appFetch(new Request(`http://localhost${location}`));
    expect(thanks.status).toBe(200);
    expect(await thanks.text()).toContain(location.split("/").pop());
    const [call] = await standin.calls();
    expect(call.remoteip).toBe("203.0.113.7");
    expect(call.idempotency_key).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("ignores X-Forwarded-For and sends only CF-Connecting-IP as remoteip", async () => {
    await appFetch(formPost("/f/contact", { ...VALID, "cf-turnstile-response": standinToken() }, { "X-Forwarded-For": "6.6.6.6" }));
    const [call] = await standin.calls();
    expect(call.remoteip).toBe("203.0.113.7");
  });

  it("stores nothing when the captcha fails (2x secret)", async () => {
    const appEnv = testEnv({ TURNSTILE_SECRET_KEY: "2x0000000000000000000000000000000AA" });
    const response = await appFetch(formPost("/f/contact", { ...VALID, "cf-turnstile-response": standinToken() }), appEnv);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("The captcha check failed or expired — please try again.");
    expect(await countRows("submissions")).toBe(0);
  });

  it("stores nothing for a replayed token", async () => {
    const token = standinToken();
    expect((await appFetch(formPost("/f/contact", { ...VALID, "cf-turnstile-response": token }))).status).toBe(303);
    const replay = await appFetch(formPost("/f/contact", { ...VALID, "cf-turnstile-response": token }));
    expect(replay.status).toBe(400);
    expect(await countRows("submissions")).toBe(1);
  });

  it("answers 503 and stores nothing while the provider is down", async () => {
    const logged = expectConsoleErrors(/Turnstile verification unavailable for form contact: turnstile_provider_error/);
    await standin.setMode("http500");
    const response = await appFetch(formPost("/f/contact", { ...VALID, "cf-turnstile-response": standinToken() }));
    expect(logged()).toHaveLength(1);
    expect(response.status).toBe(503);
    expect(await response.text()).toContain("We could not verify you right now — try again in a minute.");
    expect(await countRows("submissions")).toBe(0);
    expect((await standin.calls()).length).toBe(3);
  });

  it("keeps values, shows inline errors and does not spend the token for an invalid field", async () => {
    const response = await appFetch(formPost("/f/contact", { ...VALID, email: "not-an-email", "cf-turnstile-response": standinToken() }));
    expect(response.status).toBe(422);
    const html = await response.text();
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain("E-mail address must be a valid e-mail address");
    expect(html).toContain('value="not-an-email"');
    expect(html).toContain("Hello from the analytical engine.");
    expect(await standin.calls()).toHaveLength(0);
    expect(await countRows("submissions")).toBe(0);
  });

  it("refuses a body over 64 KiB with 413 before reading fields", async () => {
    const big = { ...VALID, message: "x".repeat(70 * 1024), "cf-turnstile-response": standinToken() };
    const response = await appFetch(formPost("/f/contact", big));
    expect(response.status).toBe(413);
    expect(await standin.calls()).toHaveLength(0);
    expect(await countRows("submissions")).toBe(0);
  });

  it("fails closed with 500 when the secret is missing", async () => {
    const logged = expectConsoleErrors(/Turnstile verification unavailable for form contact: turnstile_secret_missing/);
    const response = await appFetch(
      formPost("/f/contact", { ...VALID, "cf-turnstile-response": standinToken() }),
      testEnv({ TURNSTILE_SECRET_KEY: "" }),
    );
    expect(response.status).toBe(500);
    expect(await countRows("submissions")).toBe(0);
    expect(logged()).toHaveLength(1);
  });
});

describe("pages", () => {
  it("serves the landing page, the form, /healthz and a real 404", async () => {
    const home = await appFetch(new Request("http://localhost/"));
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('href="/f/contact"');
    const form = await appFetch(new Request("http://localhost/f/contact"));
    const html = await form.text();
    expect(html).toContain('name="message"');
    expect(html).toContain("<noscript>");
    const health = await appFetch(new Request("http://localhost/healthz"));
    expect(await health.json()).toEqual({ status: "ok", db: "ok" });
    const missing = await appFetch(new Request("http://localhost/no/such/page"));
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("Page not found");
  });
});

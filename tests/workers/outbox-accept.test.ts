import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { contactForm } from "~/forms/contact";
import { defineForm } from "~/forms/schema";
import { outboxStatements } from "~/lib/outbox.server";
import { storeSubmission } from "~/lib/submissions.server";
import { appFetch, countRows, formPost, sink, sinkEnv, standin, standinToken, testEnv } from "./helpers";

const VALID = { name: "Ada Lovelace", email: "ada@example.org", message: "Hello from the analytical engine." };

beforeEach(async () => {
  await standin.reset();
  await sink.reset();
  await env.DB.exec("DELETE FROM delivery_attempts; DELETE FROM deliveries; DELETE FROM submissions");
});

describe("atomic accept: the submission and its outbox rows in one batch", () => {
  it("writes one outbox row per configured destination, and none when no URL is set", () => {
    const now = Date.now();
    expect(outboxStatements(env.DB, sinkEnv(), contactForm, "s1", now)).toHaveLength(1);
    expect(outboxStatements(env.DB, testEnv(), contactForm, "s1", now)).toHaveLength(0);
    expect(outboxStatements(env.DB, testEnv({ CONTACT_WEBHOOK_URL: " " }), contactForm, "s1", now)).toHaveLength(0);
  });

  it("leaves neither the submission nor any outbox row when one statement of the batch fails", async () => {
    // Two destinations with one name break UNIQUE (submission_id, destination) on the second INSERT.
    const broken = defineForm({
      ...contactForm,
      destinations: [contactForm.destinations[0], contactForm.destinations[0]],
    });
    const id = crypto.randomUUID();
    const outbox = outboxStatements(env.DB, sinkEnv(), broken, id, Date.now());
    expect(outbox).toHaveLength(2);
    const stored = await storeSubmission(env.DB, { id, formId: "contact", fields: VALID, verification: null }, { also: outbox });
    expect(stored).toEqual({ ok: false, code: "storage_unavailable" });
    expect(await countRows("submissions")).toBe(0);
    expect(await countRows("deliveries")).toBe(0);

    // The same batch without the bad statement stores both: the failure above was the rollback.
    const ok = await storeSubmission(env.DB, { id, formId: "contact", fields: VALID, verification: null }, { also: outbox.slice(0, 1) });
    expect(ok.ok).toBe(true);
    expect(await countRows("submissions")).toBe(1);
    expect(await countRows("deliveries")).toBe(1);
  });

  it("rolls back on a failing statement of another kind too", async () => {
    const id = crypto.randomUUID();
    const outbox = outboxStatements(env.DB, sinkEnv(), contactForm, id, Date.now());
    const failing = env.DB.prepare("INSERT INTO deliveries (id) VALUES (NULL)");
    const stored = await storeSubmission(env.DB, { id, formId: "contact", fields: VALID, verification: null }, { also: [...outbox, failing] });
    expect(stored.ok).toBe(false);
    expect(await countRows("submissions")).toBe(0);
    expect(await countRows("deliveries")).toBe(0);
  });
});

describe("POST /f/contact with a webhook destination", () => {
  it("stores the submission with one pending row and delivers it right after the response", async () => {
    const response = await appFetch(formPost("/f/contact", { ...VALID, "cf-turnstile-response": standinToken() }), sinkEnv());
    expect(response.status).toBe(303);
    const submissionId = (response.headers.get("location") ?? "").split("/").pop();
    const delivery = await env.DB.prepare("SELECT * FROM deliveries").first<Record<string, any>>();
    expect(delivery).toMatchObject({ submission_id: submissionId, form_id: "contact", destination: "webhook" });
    expect(delivery!.id).toMatch(/^msg_[0-9a-f]{32}$/);
    // appFetch waits for waitUntil, so the first attempt has happened.
    expect(delivery).toMatchObject({ status: "delivered", attempts: 1, lease_owner: null });
    const attempts = await env.DB.prepare("SELECT * FROM delivery_attempts WHERE delivery_id = ?1").bind(delivery!.id).all();
    expect(attempts.results).toHaveLength(1);
    expect(attempts.results[0]).toMatchObject({ http_status: 200, error: null, response_excerpt: "ok" });

    const seen = await sink.state();
    expect(seen.requests).toHaveLength(1);
    expect(seen.requests[0]).toMatchObject({ id: delivery!.id, signatureValid: true, outcome: "accepted" });
    expect(seen.unique[0].payload).toEqual({
      type: "submission.created",
      form: "contact",
      submission: { id: submissionId, received_at: expect.stringMatching(/^\d{4}-/), fields: VALID },
      verification: { hostname: "localhost", action: "contact", challenge_ts: expect.any(String) },
    });
  });

  it("stores only the submission when no destination is configured", async () => {
    const response = await appFetch(formPost("/f/contact", { ...VALID, "cf-turnstile-response": standinToken() }));
    expect(response.status).toBe(303);
    expect(await countRows("submissions")).toBe(1);
    expect(await countRows("deliveries")).toBe(0);
    expect((await sink.state()).requests).toHaveLength(0);
  });

  it("signs with every secret so a receiver holding only the old one still verifies during rotation", async () => {
    const rotated = sinkEnv({ CONTACT_WEBHOOK_SECRET: `whsec_${btoa("a brand new 32-byte secret key!!")} ${sink.secret()}` });
    await appFetch(formPost("/f/contact", { ...VALID, "cf-turnstile-response": standinToken() }), rotated);
    const [request] = (await sink.state()).requests;
    expect(request).toMatchObject({ signatureValid: true, outcome: "accepted" });
  });

  it("a deployed config (no loopback switch) queues the delivery but never sends over plain http", async () => {
    const deployed = sinkEnv({ ALLOW_LOOPBACK_WEBHOOKS: "" });
    const response = await appFetch(formPost("/f/contact", { ...VALID, "cf-turnstile-response": standinToken() }), deployed);
    expect(response.status).toBe(303);
    const delivery = await env.DB.prepare("SELECT * FROM deliveries").first<Record<string, any>>();
    expect(delivery).toMatchObject({ status: "pending", attempts: 1 });
    expect(delivery!.last_error).toContain("must be an https URL");
    const attempt = await env.DB.prepare("SELECT * FROM delivery_attempts").first<Record<string, any>>();
    expect(attempt).toMatchObject({ error: "config", http_status: null });
    expect((await sink.state()).requests).toHaveLength(0);
  });
});

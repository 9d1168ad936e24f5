import { env } from "cloudflare:test";
import { EmailMessage } from "cloudflare:email";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { inject } from "vitest";
import { contactForm } from "~/forms/contact";
import { FORMS } from "~/lib/forms/registry";
import { parseSettings } from "~/lib/settings/settings.server";
import { drainOutbox } from "~/lib/delivery/drain.server";
import { leasedOutbox, redeliverDead, redeliverSubmission } from "~/lib/delivery/outbox.server";
import { bindingMailer, type Mailer, type OutgoingEmail, type SendEmailBinding } from "~/lib/sending/mailer.server";
import { loadSubmissionDetail } from "~/lib/storage/console-queries.server";
import { reserveConfirmation } from "~/lib/destinations/confirmation/sender.server";
import { CONFIRMATION_NEEDS } from "~/lib/destinations/confirmation/spec";
import { eraseByEmail } from "~/lib/submissions/erase.server";
import { applyRetention } from "~/lib/storage/retention.server";
import { appFetch, at, countRows, formPost, sink, sinkEnv, standin, standinToken } from "./helpers";
import { adminEnv, adminGet, adminPost, sessionCookie } from "./admin-helpers";

// Every notification kind on the one outbox: queued in the accept batch, sent right after the answer,
// retried on the same schedule, delivered once, 429 Retry-After honoured, 404 dead at once,
// misconfiguration held, the confirmation limited, and erase/retention leaving no trace. The drain runs
// here with an injected scheduling clock; e-mail goes through miniflare's simulated send_email (the
// Worker's own binding), a binding that refuses, or a recording Mailer.

const VALID = { name: "Grace Hopper", email: "grace@example.org", message: "A ship in port is safe." };
const TIMEOUT_MS = 800;
const origin = () => new URL(inject("sinkUrl")).origin;

function notifyEnv(overrides: Record<string, string> = {}) {
  return sinkEnv({
    EMAIL_FROM: "forms@example.org",
    PUBLIC_URL: "https://forms.example.org",
    CONTACT_EMAIL_TO: "owner@example.org",
    CONTACT_SLACK_WEBHOOK_URL: `${origin()}/slack`,
    CONTACT_DISCORD_WEBHOOK_URL: `${origin()}/discord`,
    ...overrides,
  });
}

async function setSinkMode(mode: string, options: Record<string, unknown> = {}) {
  const res = await fetch(`${inject("sinkControl")}/mode`, { method: "POST", body: JSON.stringify({ mode, ...options }) });
  if (!res.ok) throw new Error(await res.text());
}

/** The env without the Worker's send_email binding: e-mail deliveries are held. */
function withoutEmailBinding(appEnv: Env): Env {
  const { SEND_EMAIL: _binding, ...rest } = appEnv;
  return rest as Env;
}

/** The env with a send_email binding that refuses every message, as Email Routing does an unverified address. */
function refusingEmailBinding(appEnv: Env): Env {
  const binding: SendEmailBinding = {
    send: () => Promise.reject(new Error("destination address not verified")),
  };
  return { ...appEnv, SEND_EMAIL: binding } as unknown as Env;
}

/** A Mailer that refuses the first `failures` messages, then keeps what it is given. */
function recordingMailer(failures = 0): Mailer & { sent: OutgoingEmail[]; tries: number } {
  const mailer = {
    sent: [] as OutgoingEmail[],
    tries: 0,
    async send(message: OutgoingEmail) {
      mailer.tries += 1;
      if (mailer.tries <= failures) throw new Error("destination address not verified");
      mailer.sent.push(message);
    },
  };
  return mailer;
}

async function accept(appEnv: Env, fields: Record<string, string> = VALID): Promise<string> {
  const res = await appFetch(formPost("/f/contact", { ...fields, "cf-turnstile-response": standinToken() }), appEnv);
  expect(res.status).toBe(303);
  return (res.headers.get("location") ?? "").split("/").pop()!;
}

async function rows(): Promise<Array<Record<string, any>>> {
  return (await env.DB.prepare("SELECT * FROM deliveries ORDER BY destination").all<Record<string, any>>()).results;
}

async function later(): Promise<number> {
  const pending = (await rows()).filter((r) => r.status === "pending");
  return Math.max(0, ...pending.map((r) => r.next_attempt_at)) + 1;
}

/** The submission's deliveries with their attempts, as the console's timeline reads them. */
async function readDeliveryLog(db: D1Database, submissionId: string) {
  return (await loadSubmissionDetail(db, submissionId))?.deliveries ?? [];
}

beforeEach(async () => {
  await standin.reset();
  await sink.reset();
  await env.DB.exec("DELETE FROM delivery_attempts; DELETE FROM deliveries; DELETE FROM submissions; DELETE FROM confirmation_limits");
});

describe("one accepted submission with four kinds of destination", () => {
  it("queues four rows in the accept batch, or none when the batch fails", async () => {
    const settings = parseSettings(notifyEnv());
    const plan = leasedOutbox(env.DB, settings, contactForm, "s-1", Date.now(), "owner", 60_000);
    expect(plan.claims.map((c) => c.destination)).toEqual(["webhook", "email", "slack", "discord"]);
    const insertSubmission = env.DB.prepare(
      "INSERT INTO submissions (id, form_id, fields, received_at, verification) VALUES ('s-1', 'contact', '{}', ?1, NULL)",
    ).bind(new Date().toISOString());
    const broken = env.DB.prepare("INSERT INTO no_such_table VALUES (1)");
    await expect(env.DB.batch([insertSubmission, ...plan.statements, broken])).rejects.toThrow();
    expect(await countRows("deliveries")).toBe(0);

    vi.spyOn(console, "error").mockImplementation(() => {});
    const id = await accept(notifyEnv());
    expect((await rows()).map((r) => [r.destination, r.submission_id])).toEqual([
      ["discord", id],
      ["email", id],
      ["slack", id],
      ["webhook", id],
    ]);
    // Every kind leaves right after the answer, e-mail through the Worker's send_email binding.
    const after = Object.fromEntries((await rows()).map((r) => [r.destination, [r.status, r.attempts, r.lease_owner]]));
    expect(after).toEqual({
      webhook: ["delivered", 1, null],
      slack: ["delivered", 1, null],
      discord: ["delivered", 1, null],
      email: ["delivered", 1, null],
    });
    const excerpts = (await env.DB.prepare("SELECT response_excerpt FROM delivery_attempts WHERE response_excerpt LIKE 'sent to%'").all())
      .results;
    expect(excerpts).toEqual([{ response_excerpt: "sent to 1 recipient" }]);

    // The same e-mail, when the service refused it at first, is sent by a later drain with its Reply-To.
    await accept(refusingEmailBinding(notifyEnv()));
    const mailer = recordingMailer();
    expect(await drainOutbox(env.DB, parseSettings(notifyEnv()), { mailer, now: at(await later()) })).toMatchObject({
      claimed: 1,
      delivered: 1,
    });
    expect(mailer.sent.map((m) => [m.from, m.to])).toEqual([["forms@example.org", "owner@example.org"]]);
    expect(mailer.sent[0].raw).toMatch(/^Reply-To: <grace@example\.org>$/m);
  });
});

describe("each kind retries after failures and is delivered exactly once", () => {
  it("webhook, Slack, Discord and e-mail all get through once the receivers recover", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    await setSinkMode("http500");
    // The e-mail service refuses twice: the Worker's binding right after the answer, then the first drain.
    const id = await accept(refusingEmailBinding(notifyEnv()));
    const mailer = recordingMailer(1);
    let clock = Date.now();
    for (let round = 0; round < 3; round++) {
      if (round === 1) await setSinkMode("down");
      if (round === 2) await setSinkMode("normal");
      await drainOutbox(env.DB, parseSettings(notifyEnv()), { now: at(clock), timeoutMs: TIMEOUT_MS, mailer });
      clock = await later();
    }
    await drainOutbox(env.DB, parseSettings(notifyEnv()), { now: at(clock), timeoutMs: TIMEOUT_MS, mailer });
    const final = await rows();
    expect(final.map((r) => [r.destination, r.status])).toEqual([
      ["discord", "delivered"],
      ["email", "delivered"],
      ["slack", "delivered"],
      ["webhook", "delivered"],
    ]);
    expect(final.find((r) => r.destination === "email")!.attempts).toBe(3);
    // Nothing is sent again once delivered, however many drains run.
    expect(await drainOutbox(env.DB, parseSettings(notifyEnv()), { now: at(clock + 86_400_000), mailer })).toMatchObject({ claimed: 0 });
    const state = await sink.state();
    const accepted = state.requests.filter((r: any) => r.outcome === "accepted");
    expect(accepted.map((r: any) => r.kind).sort()).toEqual(["discord", "slack", "webhook"]);
    expect(
      state.messages
        .filter((m: any) => m.reference === id)
        .map((m: any) => m.kind)
        .sort(),
    ).toEqual(["discord", "slack"]);
    expect(mailer.sent).toHaveLength(1);
    const log = await readDeliveryLog(env.DB, id);
    expect(log.find((d) => d.destination === "email")!.log.map((a) => a.error)).toEqual(["rejected", "rejected", null]);
    expect(log.find((d) => d.destination === "slack")!.log.map((a) => a.error)).toEqual(["http_status", "network", null]);
  });

  it("honours a 429's Retry-After before trying Slack again", async () => {
    await setSinkMode("http429", { retryAfter: 120 });
    const t0 = Date.now();
    await accept(notifyEnv({ CONTACT_EMAIL_TO: "", CONTACT_DISCORD_WEBHOOK_URL: "", CONTACT_WEBHOOK_URL: "" }));
    const [slack] = await rows();
    expect(slack).toMatchObject({ destination: "slack", status: "pending", attempts: 1 });
    expect(slack.last_error).toContain("Retry-After 120 s");
    expect(slack.next_attempt_at).toBeGreaterThanOrEqual(t0 + 120_000);
    await setSinkMode("normal");
    // The schedule alone would retry after ~10 s; the receiver asked for 120 s, so nothing is due at 60 s.
    expect(await drainOutbox(env.DB, parseSettings(notifyEnv()), { now: at(t0 + 60_000) })).toMatchObject({ claimed: 0 });
    expect(await drainOutbox(env.DB, parseSettings(notifyEnv()), { now: at(slack.next_attempt_at) })).toMatchObject({ delivered: 1 });
  });

  it("reports a Discord 404 as a dead destination at once, not after 44 h of retries", async () => {
    await setSinkMode("http404");
    const id = await accept(notifyEnv({ CONTACT_EMAIL_TO: "", CONTACT_SLACK_WEBHOOK_URL: "", CONTACT_WEBHOOK_URL: "" }));
    const [discord] = await rows();
    expect(discord).toMatchObject({ destination: "discord", status: "dead", attempts: 1 });
    expect(discord.last_error).toContain("no longer exists");
    const [view] = await readDeliveryLog(env.DB, id);
    expect(view.log.map((a) => [a.httpStatus, a.error])).toEqual([[404, "gone"]]);
  });
});

describe("misconfiguration holds deliveries instead of dropping them", () => {
  it("holds e-mail while the Worker lacks its binding, keeps the attempt budget, and sends once it is there", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const id = await accept(
      withoutEmailBinding(notifyEnv({ CONTACT_SLACK_WEBHOOK_URL: "", CONTACT_DISCORD_WEBHOOK_URL: "", CONTACT_WEBHOOK_URL: "" })),
    );
    let clock = Date.now();
    for (let i = 0; i < 12; i++) {
      await drainOutbox(env.DB, parseSettings(notifyEnv()), { now: at(clock), mailer: null });
      clock = await later();
    }
    const [held] = await rows();
    expect(held).toMatchObject({ destination: "email", status: "pending", attempts: 0 });
    expect(held.last_error).toContain("SEND_EMAIL");
    // One log row for the reason, not one per look.
    expect((await readDeliveryLog(env.DB, id))[0].log.map((a) => a.error)).toEqual(["config"]);
    const mailer = recordingMailer();
    await drainOutbox(env.DB, parseSettings(notifyEnv()), { now: at(clock), mailer });
    expect((await rows())[0]).toMatchObject({ status: "delivered", attempts: 1 });
    expect(mailer.sent).toHaveLength(1);
  });
});

describe("the confirmation to the sender", () => {
  it("goes out at most once per address per 24 h per form, and again after the window", async () => {
    const confirmEnv = notifyEnv({
      CONTACT_CONFIRMATION: "on",
      CONTACT_EMAIL_TO: "",
      CONTACT_SLACK_WEBHOOK_URL: "",
      CONTACT_DISCORD_WEBHOOK_URL: "",
      CONTACT_WEBHOOK_URL: "",
    });
    const mailer = recordingMailer();
    // The service refuses the first try right after each answer; the drain sends what may be sent.
    const first = await accept(refusingEmailBinding(confirmEnv));
    const second = await accept(refusingEmailBinding(confirmEnv), {
      ...VALID,
      email: "GRACE@example.org",
      message: "Me again, same address.",
    });
    await drainOutbox(env.DB, parseSettings(confirmEnv), { mailer, now: at(await later()) });
    expect(mailer.sent.map((m) => m.to)).toEqual(["grace@example.org"]);
    expect(mailer.sent[0].raw).not.toContain("ship in port"); // nothing the sender typed
    const [a, b] = await Promise.all([readDeliveryLog(env.DB, first), readDeliveryLog(env.DB, second)]);
    expect(a[0]).toMatchObject({ destination: "confirmation", status: "delivered", lastError: null });
    expect(a[0].log.map((l) => l.error)).toEqual(["rejected", null]);
    expect(b[0]).toMatchObject({ destination: "confirmation", status: "delivered" });
    expect(b[0].lastError).toContain("last 24 h");
    expect(b[0].log.map((l) => l.error)).toEqual(["skipped"]);
    expect(await countRows("confirmation_limits")).toBe(1);

    // A day later the address may get one again.
    await env.DB.prepare("UPDATE confirmation_limits SET sent_at = ?1")
      .bind(Date.now() - 86_400_001)
      .run();
    const third = await accept(refusingEmailBinding(confirmEnv), { ...VALID, message: "A day later, once more." });
    await drainOutbox(env.DB, parseSettings(confirmEnv), { mailer, now: at(await later()) });
    expect(mailer.sent).toHaveLength(2);
    expect((await readDeliveryLog(env.DB, third))[0].lastError).toBeNull();
  });
});

describe("a confirmation the e-mail service cannot send", () => {
  const onlyConfirmation = () =>
    notifyEnv({
      CONTACT_CONFIRMATION: "on",
      CONTACT_EMAIL_TO: "",
      CONTACT_SLACK_WEBHOOK_URL: "",
      CONTACT_DISCORD_WEBHOOK_URL: "",
      CONTACT_WEBHOOK_URL: "",
    });

  it("is shown as not sent, with the service's reason, and never as delivered or asked again", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    // Email Service's refusal of a recipient (thrown with .code), and Email Routing's of an unverified address.
    const refusals = [
      Object.assign(new Error("recipient not allowed"), { code: "E_RECIPIENT_NOT_ALLOWED" }),
      new Error("destination address is not a verified address"),
    ];
    for (const refusal of refusals) {
      await env.DB.exec("DELETE FROM delivery_attempts; DELETE FROM deliveries; DELETE FROM submissions; DELETE FROM confirmation_limits");
      const tries: string[] = [];
      const binding: SendEmailBinding = { send: (message) => (tries.push((message as { to: string }).to), Promise.reject(refusal)) };
      const id = await accept({ ...onlyConfirmation(), SEND_EMAIL: binding } as unknown as Env);
      const mailer = recordingMailer();
      await drainOutbox(env.DB, parseSettings(onlyConfirmation()), { mailer, now: at(Date.now() + 86_400_000) });
      expect([tries, mailer.sent]).toEqual([["grace@example.org"], []]);
      const [confirmation] = await readDeliveryLog(env.DB, id);
      expect(confirmation.log.map((a) => a.error)).toEqual(["skipped"]);
      expect(confirmation.lastError).toMatch(/^not sent: the e-mail service refused the message to grace@example\.org/);

      const appEnv = await adminEnv({ EMAIL_FROM: "forms@example.org", CONTACT_CONFIRMATION: "on" });
      const page = await (await appFetch(adminGet(`/admin/submissions/${id}`, await sessionCookie("admin", appEnv)), appEnv)).text();
      const section = page.slice(page.indexOf("Confirmation to the sender"));
      expect(section.replaceAll("<!-- -->", "")).toMatch(/^Confirmation to the sender <span class="badge badge-not-sent">Not sent<\/span>/);
      expect(section.slice(0, section.indexOf("</section>"))).not.toContain(">Delivered<");
      // The timeline says what confirmations need to reach the public (ADR 091).
      expect(section.slice(0, section.indexOf("</section>")).replaceAll("&#x27;", "'")).toContain(CONFIRMATION_NEEDS);
    }
  });

  it("waits out the service's daily limit, saying what confirmations need, and is never shown as delivered", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const limit = Object.assign(new Error("daily limit"), { code: "E_DAILY_LIMIT_EXCEEDED" });
    const binding: SendEmailBinding = { send: () => Promise.reject(limit) };
    const id = await accept({ ...onlyConfirmation(), SEND_EMAIL: binding } as unknown as Env);
    const [confirmation] = await readDeliveryLog(env.DB, id);
    expect(confirmation.status).toBe("pending");
    expect(confirmation.log.map((a) => a.error)).toEqual(["rate_limited"]);
    expect(confirmation.lastError).toContain("E_DAILY_LIMIT_EXCEEDED");
    expect(confirmation.lastError).toContain(CONFIRMATION_NEEDS);
  });

  it("is not sent a second time when the drain that began sending it stopped before recording it", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    // No binding at the answer: the confirmation waits, held, for the drain.
    const id = await accept(withoutEmailBinding(onlyConfirmation()));
    const [row] = await rows();
    // A drain claims it, takes the slot and hands the e-mail to the service; the Worker is stopped there.
    expect(await reserveConfirmation(env.DB, "contact", "grace@example.org", row.id, Date.now())).toBe("reserved");
    const mailer = recordingMailer();
    await drainOutbox(env.DB, parseSettings(onlyConfirmation()), { mailer, now: at(await later()) });
    expect(mailer.sent).toEqual([]);
    const [confirmation] = await readDeliveryLog(env.DB, id);
    expect(confirmation.status).toBe("delivered");
    expect(confirmation.log.map((a) => a.error)).toEqual(["config", "skipped"]);
    expect(confirmation.lastError).toContain("began sending it and the Worker stopped before it was recorded");
  });

  it("is sent again after a failure that was recorded, once", async () => {
    const id = await accept(withoutEmailBinding(onlyConfirmation()));
    const failing = recordingMailer(1);
    await drainOutbox(env.DB, parseSettings(onlyConfirmation()), { mailer: failing, now: at(await later()) });
    await drainOutbox(env.DB, parseSettings(onlyConfirmation()), { mailer: failing, now: at(await later()) });
    await drainOutbox(env.DB, parseSettings(onlyConfirmation()), { mailer: failing, now: at((await later()) + 86_400_000) });
    expect([failing.tries, failing.sent.map((m) => m.to)]).toEqual([2, ["grace@example.org"]]);
    expect((await readDeliveryLog(env.DB, id))[0].log.map((a) => a.error)).toEqual(["config", "rejected", null]);
  });
});

describe("erase and retention", () => {
  it("remove every trace in every kind's rows, the confirmation limit included", async () => {
    const all = notifyEnv({ CONTACT_CONFIRMATION: "on" });
    await accept(all);
    await drainOutbox(env.DB, parseSettings(all), { mailer: recordingMailer() });
    expect(await countRows("deliveries")).toBe(5);
    expect(await countRows("confirmation_limits")).toBe(1);
    const erased = await eraseByEmail(env.DB, env.UPLOADS, "grace@example.org", () => env.DB.prepare("SELECT 1"));
    expect(erased).toBe(1);
    for (const table of ["submissions", "deliveries", "delivery_attempts", "confirmation_limits"]) expect(await countRows(table)).toBe(0);

    await accept(all);
    await drainOutbox(env.DB, parseSettings(all), { mailer: recordingMailer() });
    await applyRetention(env.DB, env.UPLOADS, FORMS, Date.now() + (contactForm.retentionDays + 1) * 86_400_000);
    for (const table of ["submissions", "deliveries", "delivery_attempts", "confirmation_limits"]) expect(await countRows(table)).toBe(0);
  });
});

describe("redelivery of an e-mail", () => {
  it("sends it again under the same delivery id", async () => {
    const id = await accept(
      refusingEmailBinding(notifyEnv({ CONTACT_SLACK_WEBHOOK_URL: "", CONTACT_DISCORD_WEBHOOK_URL: "", CONTACT_WEBHOOK_URL: "" })),
    );
    const mailer = recordingMailer();
    await drainOutbox(env.DB, parseSettings(notifyEnv()), { mailer, now: at(await later()) });
    const [before] = await rows();
    expect(await redeliverSubmission(env.DB, id, Date.now())).toEqual({ ok: true, requeued: 1, keptConfirmations: 0 });
    await drainOutbox(env.DB, parseSettings(notifyEnv()), { mailer });
    const [after] = await rows();
    expect(after).toMatchObject({ id: before.id, status: "delivered", attempts: 1 });
    expect(mailer.sent).toHaveLength(2);
  });
});

describe("redelivery and the confirmation's once-per-24-hours promise", () => {
  const confirmAndEmail = () =>
    notifyEnv({ CONTACT_CONFIRMATION: "on", CONTACT_SLACK_WEBHOOK_URL: "", CONTACT_DISCORD_WEBHOOK_URL: "", CONTACT_WEBHOOK_URL: "" });

  it("queues everything else again but never a confirmation that went (or was skipped)", async () => {
    // Both e-mails leave right after the answer, through a binding that records where they went.
    const sentTo: string[] = [];
    const recording: SendEmailBinding = { send: async (message) => void sentTo.push((message as { to: string }).to) };
    const id = await accept({ ...confirmAndEmail(), SEND_EMAIL: recording } as unknown as Env);
    expect(sentTo.sort()).toEqual(["grace@example.org", "owner@example.org"]);
    expect(await redeliverSubmission(env.DB, id, Date.now())).toEqual({ ok: true, requeued: 1, keptConfirmations: 1 });
    const mailer = recordingMailer();
    await drainOutbox(env.DB, parseSettings(confirmAndEmail()), { mailer });
    expect(mailer.sent.map((m) => m.to)).toEqual(["owner@example.org"]);
    // The console says so.
    const appEnv = await adminEnv({ EMAIL_FROM: "forms@example.org", CONTACT_EMAIL_TO: "owner@example.org", CONTACT_CONFIRMATION: "on" });
    const response = await appFetch(
      adminPost(`/admin/submissions/${id}`, { intent: "redeliver" }, { Cookie: await sessionCookie("admin", appEnv) }),
      { ...appEnv, SEND_EMAIL: recording } as unknown as Env,
    );
    expect(await response.text()).toContain("The confirmation to the sender is not sent again.");
    expect(sentTo.filter((to) => to === "grace@example.org")).toHaveLength(1);
  });

  it("sends a dead confirmation, which never went, once when its dead deliveries are queued again", async () => {
    await accept(confirmAndEmail());
    await env.DB.prepare("UPDATE deliveries SET status = 'dead', attempts = 9 WHERE destination = 'confirmation'").run();
    expect(await redeliverDead(env.DB, "contact", Date.now())).toEqual({ ok: true, requeued: 1, keptConfirmations: 0 });
    const mailer = recordingMailer();
    await drainOutbox(env.DB, parseSettings(confirmAndEmail()), { mailer });
    await drainOutbox(env.DB, parseSettings(confirmAndEmail()), { mailer, now: at(Date.now() + 86_400_000) });
    expect(mailer.sent.filter((m) => m.to === "grace@example.org")).toHaveLength(1);
  });

  it("refuses a submission whose only delivery is a confirmation that went, saying why", async () => {
    const onlyConfirmation = notifyEnv({
      CONTACT_CONFIRMATION: "on",
      CONTACT_EMAIL_TO: "",
      CONTACT_SLACK_WEBHOOK_URL: "",
      CONTACT_DISCORD_WEBHOOK_URL: "",
      CONTACT_WEBHOOK_URL: "",
    });
    const id = await accept(onlyConfirmation);
    await drainOutbox(env.DB, parseSettings(onlyConfirmation), { mailer: recordingMailer() });
    expect(await redeliverSubmission(env.DB, id, Date.now())).toEqual({ ok: false, code: "redelivery_no_destination" });
  });
});

describe("the real send_email binding (miniflare's simulation)", () => {
  it("accepts the MIME mimetext builds: a Message-ID, and From matching the envelope", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    // Sent by the Worker itself, right after the answer, through its own binding.
    await accept(
      notifyEnv({
        CONTACT_SLACK_WEBHOOK_URL: "",
        CONTACT_DISCORD_WEBHOOK_URL: "",
        CONTACT_WEBHOOK_URL: "",
        CONTACT_EMAIL_TO: "owner@example.org, second@example.org",
      }),
    );
    // And by a drain, through the same binding wrapped by hand.
    const binding = (env as unknown as { SEND_EMAIL: SendEmailBinding }).SEND_EMAIL;
    await env.DB.prepare("UPDATE deliveries SET status = 'pending', next_attempt_at = 0").run();
    const mailer = bindingMailer(binding, EmailMessage);
    expect(
      await drainOutbox(env.DB, parseSettings(notifyEnv({ CONTACT_EMAIL_TO: "owner@example.org, second@example.org" })), { mailer }),
    ).toMatchObject({ delivered: 1 });
    const [email] = await rows();
    expect(email).toMatchObject({ status: "delivered", last_error: null });
    const attempts = (await env.DB.prepare("SELECT error, response_excerpt FROM delivery_attempts").all<Record<string, any>>()).results;
    expect(attempts).toEqual([
      { error: null, response_excerpt: "sent to 2 recipients" },
      { error: null, response_excerpt: "sent to 2 recipients" },
    ]);
  });
});

describe("bad configuration fails loudly", () => {
  it("reports a non-https Slack URL and e-mail without EMAIL_FROM on /healthz as degraded, by name", async () => {
    const res = await appFetch(
      new Request("http://localhost/healthz"),
      notifyEnv({ CONTACT_SLACK_WEBHOOK_URL: "http://hooks.example.org/services/x", EMAIL_FROM: "" }),
    );
    const body = await res.json<{ status: string; settings: string[] }>();
    expect(body.status).toBe("degraded");
    expect(body.settings).toEqual(["CONTACT_SLACK_WEBHOOK_URL", "EMAIL_FROM"]);
    expect(JSON.stringify(body)).not.toContain("hooks.example.org");
  });

  it("lists held and gone destinations for the dashboard", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const { readDestinationAttention } = await import("~/lib/storage/destination-attention.server");
    await setSinkMode("http404");
    await accept(withoutEmailBinding(notifyEnv({ CONTACT_WEBHOOK_URL: "", CONTACT_SLACK_WEBHOOK_URL: "" })));
    await drainOutbox(env.DB, parseSettings(notifyEnv()), { mailer: null });
    expect(await readDestinationAttention(env.DB)).toEqual([
      { formId: "contact", destination: "discord", held: 0, gone: 1, reason: expect.stringContaining("no longer exists") },
      { formId: "contact", destination: "email", held: 1, gone: 0, reason: expect.stringContaining("SEND_EMAIL") },
    ]);
  });
});

describe("/healthz and held deliveries", () => {
  it("is degraded while e-mail is held for the Worker's missing binding, by kind only", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const health = async () => (await appFetch(new Request("http://localhost/healthz"), notifyEnv())).json<Record<string, unknown>>();
    expect(await health()).toEqual({ status: "ok", db: "ok" });
    await accept(
      withoutEmailBinding(notifyEnv({ CONTACT_WEBHOOK_URL: "", CONTACT_SLACK_WEBHOOK_URL: "", CONTACT_DISCORD_WEBHOOK_URL: "" })),
    );
    expect(await health()).toEqual({ status: "degraded", db: "ok", destinations: ["contact/email: held"] });
    await drainOutbox(env.DB, parseSettings(notifyEnv()), { mailer: null });
    expect(await health()).toEqual({ status: "degraded", db: "ok", destinations: ["contact/email: held"] });
    await drainOutbox(env.DB, parseSettings(notifyEnv()), { mailer: recordingMailer(), now: at(Date.now() + 6 * 60_000) });
    expect(await health()).toEqual({ status: "ok", db: "ok" });
  });
});

describe("the console's dashboard", () => {
  it("lists bad settings by name and destinations that are held or gone", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    await setSinkMode("http404");
    await accept(notifyEnv({ CONTACT_WEBHOOK_URL: "", CONTACT_SLACK_WEBHOOK_URL: "", CONTACT_EMAIL_TO: "" }));
    const appEnv = await adminEnv({ CONTACT_SLACK_WEBHOOK_URL: "http://hooks.example.org/services/secret-part" });
    const html = (await (await appFetch(adminGet("/admin", await sessionCookie("admin", appEnv)), appEnv)).text()).replace(/<!-- -->/g, "");
    expect(html).toContain("Needs attention");
    expect(html).toContain("CONTACT_SLACK_WEBHOOK_URL must be an https URL");
    expect(html).not.toContain("secret-part");
    expect(html).toContain("contact → discord: 1 dead: the destination no longer exists");
  });
});

import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { drainOutbox } from "~/lib/delivery/drain.server";
import { PAUSE_AFTER_FAILURES, PROBE_INTERVAL_MS } from "~/lib/delivery/settle.server";
import { budgetFor } from "~/lib/platform/budget.server";
import { parseSettings } from "~/lib/settings/settings.server";
import { listDestinationHealth, resumeDestination } from "~/lib/storage/destination-health.server";
import { adminEnv, adminGet, adminPost, sessionCookie } from "./admin-helpers";
import { appFetch, at, clearTables, sinkEnv } from "./helpers";
import { deliveryRows, keepingMailer, storeDue, switchableReceiver } from "./outbox-helpers";

// A receiver that keeps failing is paused, not hammered (docs/decisions/071): its deliveries wait
// pending without spending attempts, one is tried as a probe every PROBE_INTERVAL_MS, a success (or an
// admin) resumes it, and the owner is told once.

const N = 15;
const settings = () =>
  parseSettings(
    sinkEnv({
      CONTACT_WEBHOOK_URL: "https://receiver.example/hook",
      EMAIL_FROM: "forms@example.org",
      CONTACT_EMAIL_TO: "owner@example.org",
    }),
  );

beforeEach(async () => {
  await clearTables();
  await env.DB.exec("DELETE FROM destination_health; DELETE FROM audit_log");
});

/** A pause notice: its subject (base64 by mimetext) starts "Deliveries paused". */
const isNotice = (raw: string) => {
  const subject = /^Subject: =\?utf-8\?B\?([^?]+)\?=$/m.exec(raw)?.[1];
  return subject !== undefined && atob(subject).startsWith("Deliveries paused: Contact");
};

const webhooks = async () => (await deliveryRows()).filter((row) => row.destination === "webhook");

/** Stores N due submissions and drains once against a receiver that is down; returns what it needs. */
async function pauseTheWebhook() {
  const t0 = Date.now();
  await storeDue(N, settings(), t0);
  const receiver = switchableReceiver();
  receiver.up = false;
  const mailer = keepingMailer();
  const options = { fetch: receiver.fetch, mailer, budget: budgetFor("paid") };
  await drainOutbox(env.DB, settings(), { ...options, now: at(t0) });
  return { t0, receiver, mailer, options };
}

describe("a failing destination is paused", () => {
  it("after PAUSE_AFTER_FAILURES failures in a row: the rest wait pending with no attempt spent, and the owner is told once", async () => {
    const { t0, receiver, mailer, options } = await pauseTheWebhook();
    const [health] = await listDestinationHealth(env.DB, "contact");
    expect(health.consecutiveFailures).toBeGreaterThanOrEqual(PAUSE_AFTER_FAILURES);
    expect(health).toMatchObject({
      destination: "webhook",
      pausedAt: t0,
      lastError: "HTTP 503",
    });
    // The failures before the pause were counted; the one that paused it and every later one were not.
    const rows = await webhooks();
    expect(rows.every((row) => row.status === "pending")).toBe(true);
    expect(rows.reduce((sum, row) => sum + row.attempts, 0)).toBe(PAUSE_AFTER_FAILURES - 1);
    // Attempts already in flight when it paused (batches of six) still went; none started after it.
    expect(receiver.seen.length).toBeGreaterThanOrEqual(PAUSE_AFTER_FAILURES);
    expect(receiver.seen.length).toBeLessThan(PAUSE_AFTER_FAILURES + 6);
    // The owner's notification e-mails went; the one pause notice among them names the destination and the error.
    const notices = mailer.sent.filter((m) => isNotice(m.raw));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ from: "forms@example.org", to: "owner@example.org" });

    // Every retry falls due, yet nothing is sent to the paused receiver before its probe, and no notice again.
    const seen = receiver.seen.length;
    await drainOutbox(env.DB, settings(), { ...options, now: at(t0 + PROBE_INTERVAL_MS - 1) });
    expect(receiver.seen).toHaveLength(seen);
    expect((await webhooks()).reduce((sum, row) => sum + row.attempts, 0)).toBe(PAUSE_AFTER_FAILURES - 1);

    // A probe that fails is not counted either; the next probe waits another interval.
    await drainOutbox(env.DB, settings(), { ...options, now: at(t0 + PROBE_INTERVAL_MS) });
    expect(receiver.seen).toHaveLength(seen + 1);
    expect((await webhooks()).reduce((sum, row) => sum + row.attempts, 0)).toBe(PAUSE_AFTER_FAILURES - 1);
    const [still] = await listDestinationHealth(env.DB, "contact");
    expect(still).toMatchObject({ probeAt: t0 + 2 * PROBE_INTERVAL_MS });
    expect(mailer.sent.filter((m) => isNotice(m.raw))).toHaveLength(1);
  });

  it("a probe that succeeds resumes the destination, and everything waiting is delivered", async () => {
    const { t0, receiver, options } = await pauseTheWebhook();
    receiver.up = true;
    // Far enough on that every retry is due: the probe resumes it and the same run sends the rest.
    await drainOutbox(env.DB, settings(), { ...options, now: at(t0 + 3_600_000) });
    expect(await listDestinationHealth(env.DB, "contact")).toMatchObject([{ pausedAt: null, consecutiveFailures: 0 }]);
    const rows = await webhooks();
    expect(rows.every((row) => row.status === "delivered")).toBe(true);
    expect(new Set(receiver.seen).size).toBe(N);
  });

  it("an admin can resume it by hand; the drain then tries everything due", async () => {
    const { t0, receiver, options } = await pauseTheWebhook();
    receiver.up = true;
    expect(await resumeDestination(env.DB, "contact", "webhook")).toBe(true);
    expect(await resumeDestination(env.DB, "contact", "webhook")).toBe(false);
    await drainOutbox(env.DB, settings(), { ...options, now: at(t0 + 3_600_000) });
    expect((await webhooks()).every((row) => row.status === "delivered")).toBe(true);
  });
});

describe("a paused destination in the console", () => {
  it("shows it paused with its last error, and lets an admin (not a viewer) resume it, audited", async () => {
    const pausedAt = Date.UTC(2026, 10, 20, 9, 30);
    await env.DB.prepare(
      `INSERT INTO destination_health (form_id, destination, consecutive_failures, last_error, last_failure_at, paused_at, probe_at)
       VALUES ('contact', 'webhook', 12, 'HTTP 503', ?1, ?1, ?2)`,
    )
      .bind(pausedAt, pausedAt + PROBE_INTERVAL_MS)
      .run();
    const e = await adminEnv();
    const page = await appFetch(adminGet("/admin/forms/contact/destinations", await sessionCookie("viewer", e)), e);
    const html = await page.text();
    expect(html).toContain("webhook: paused");
    expect(html).toContain("Last error: HTTP 503");
    expect(html).not.toContain("Resume deliveries to webhook");

    const data = `?_data=${encodeURIComponent("routes/admin.forms.$formId_.destinations")}`;
    const asViewer = await appFetch(
      adminPost(`/admin/forms/contact/destinations${data}`, { intent: "resume:webhook" }, { Cookie: await sessionCookie("viewer", e) }),
      e,
    );
    expect(asViewer.status).toBe(403);
    expect((await listDestinationHealth(env.DB, "contact"))[0].pausedAt).toBe(pausedAt);

    const admin = await sessionCookie("admin", e);
    expect(await (await appFetch(adminGet("/admin/forms/contact/destinations", admin), e)).text()).toContain(
      "Resume deliveries to webhook",
    );
    const resumed = await appFetch(
      adminPost(`/admin/forms/contact/destinations${data}`, { intent: "resume:webhook" }, { Cookie: admin }),
      e,
    );
    expect(await resumed.json()).toMatchObject({ ok: true });
    expect((await listDestinationHealth(env.DB, "contact"))[0]).toMatchObject({ pausedAt: null, consecutiveFailures: 0 });
    const again = await appFetch(adminPost(`/admin/forms/contact/destinations${data}`, { intent: "resume:webhook" }, { Cookie: admin }), e);
    expect(await again.json()).toMatchObject({ ok: false });
    const audit = await env.DB.prepare("SELECT action, target, detail FROM audit_log WHERE action = 'destination.resume'").all();
    expect(audit.results).toEqual([{ action: "destination.resume", target: "contact", detail: '{"destination":"webhook"}' }]);
  });
});

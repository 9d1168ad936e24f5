import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { appFetch, sink, sinkEnv } from "./helpers";
import { adminEnv, adminPost, clearAdminTables, seedSubmission, sessionCookie } from "./admin-helpers";

// Redeliver and release go through the outbox module (ADR 003) and the local webhook sink.

let admin = "";
async function appEnv() {
  const base = await adminEnv();
  return sinkEnv({
    ADMIN_PASSWORD_HASH: base.ADMIN_PASSWORD_HASH,
    VIEWER_PASSWORD_HASH: base.VIEWER_PASSWORD_HASH,
    SESSION_SECRET: base.SESSION_SECRET,
  });
}

beforeEach(async () => {
  await clearAdminTables();
  await sink.reset();
  admin = await sessionCookie("admin");
});

const FIELDS = { name: "Ada", email: "ada@example.org", message: "Hello from the engine." };

async function auditActions() {
  return (await env.DB.prepare("SELECT action, target, detail FROM audit_log ORDER BY id").all<Record<string, string>>()).results;
}

describe("redeliver", () => {
  it("requeues one dead submission under the same webhook-id and delivers it at once", async () => {
    const id = await seedSubmission({
      fields: FIELDS,
      deliveries: [{ destination: "webhook", status: "dead", lastError: "http_status", attempts: [{ httpStatus: 500 }] }],
    });
    const response = await appFetch(adminPost(`/admin/submissions/${id}`, { intent: "redeliver" }, { Cookie: admin }), await appEnv());
    expect(response.status).toBe(200);
    const delivery = await env.DB.prepare("SELECT id, status FROM deliveries WHERE submission_id = ?1")
      .bind(id)
      .first<Record<string, string>>();
    expect(delivery?.status).toBe("delivered");
    expect((await sink.state()).unique.map((u) => u.id)).toEqual([delivery?.id]);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM delivery_attempts").first("n")).toBe(2);
    expect(await auditActions()).toEqual([{ action: "submission.redeliver", target: id, detail: '{"requeued":1}' }]);
  });

  it("requeues every dead delivery of a form from the dashboard", async () => {
    const dead = [{ destination: "webhook", status: "dead" as const }];
    await seedSubmission({ fields: FIELDS, deliveries: dead });
    await seedSubmission({ fields: FIELDS, deliveries: dead });
    await seedSubmission({ fields: FIELDS, deliveries: [{ destination: "webhook", status: "delivered" }] });
    const response = await appFetch(adminPost("/admin?index", { formId: "contact" }, { Cookie: admin }), await appEnv());
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("Queued 2 dead deliveries of contact again.");
    const states = await env.DB.prepare("SELECT status, COUNT(*) AS n FROM deliveries GROUP BY status ORDER BY status").all();
    expect(states.results).toEqual([
      { status: "delivered", n: 1 },
      { status: "pending", n: 2 },
    ]);
    expect((await auditActions())[0]).toMatchObject({ action: "form.redeliver-dead", target: "contact" });
  });
});

describe("release from quarantine", () => {
  it("flips the status, puts the submission in the outbox and delivers it; a second release is refused", async () => {
    const id = await seedSubmission({ fields: FIELDS, quarantineReason: "honeypot filled" });
    const response = await appFetch(adminPost(`/admin/submissions/${id}`, { intent: "release" }, { Cookie: admin }), await appEnv());
    expect(response.status).toBe(200);
    expect(await env.DB.prepare("SELECT status FROM submissions WHERE id = ?1").bind(id).first("status")).toBe("accepted");
    const delivery = await env.DB.prepare("SELECT status, destination FROM deliveries WHERE submission_id = ?1").bind(id).first();
    expect(delivery).toEqual({ status: "delivered", destination: "webhook" });
    expect((await sink.state()).unique).toHaveLength(1);

    const again = await appFetch(adminPost(`/admin/submissions/${id}`, { intent: "release" }, { Cookie: admin }), await appEnv());
    expect(again.status).toBe(409);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM deliveries").first("n")).toBe(1);
    expect((await auditActions()).map((a) => a.action)).toEqual(["submission.release"]);
  });
});

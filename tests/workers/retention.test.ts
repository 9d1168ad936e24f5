import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { defineForm } from "~/forms/schema";
import { applyRetention, RETENTION_FORMS_PER_CHUNK } from "~/lib/storage/retention.server";
import { parseSettings } from "~/lib/settings/settings.server";
import { at, countingDb, countRows } from "./helpers";
import { clearAdminTables, seedSubmission } from "./admin-helpers";

const DAY = 86_400_000;
const NOW = Date.parse("2026-06-01T12:00:00.000Z");
const form = (id: string, retentionDays: number) =>
  defineForm({ id, title: id, description: id, fields: [], destinations: [], allowedOrigins: [], successMessage: "ok", retentionDays });

beforeEach(clearAdminTables);

describe("applyRetention in workerd with real D1", () => {
  it("deletes each form's submissions older than its retention with their deliveries and attempts, and nothing else", async () => {
    const at = (daysAgo: number) => new Date(NOW - daysAgo * DAY).toISOString();
    const delivery = [{ status: "dead" as const, attempts: [{ httpStatus: 500 }, { httpStatus: 502 }] }];
    const oldContact = await seedSubmission({ formId: "contact", fields: { n: 1 }, receivedAt: at(91), deliveries: delivery });
    const keptContact = await seedSubmission({ formId: "contact", fields: { n: 2 }, receivedAt: at(89), deliveries: delivery });
    const oldNews = await seedSubmission({ formId: "newsletter", fields: { n: 3 }, receivedAt: at(8), quarantineReason: "honeypot" });
    const keptNews = await seedSubmission({ formId: "newsletter", fields: { n: 4 }, receivedAt: at(6) });
    // A form no longer in the registry is left alone: retention only acts on a definition it can read.
    const orphan = await seedSubmission({ formId: "retired", fields: { n: 5 }, receivedAt: at(4000) });

    const report = await applyRetention(env.DB, env.UPLOADS, [form("contact", 90), form("newsletter", 7)], NOW);
    expect(report).toEqual([
      { formId: "contact", cutoff: at(90), deleted: 1 },
      { formId: "newsletter", cutoff: at(7), deleted: 1 },
    ]);
    const left = await env.DB.prepare("SELECT id FROM submissions ORDER BY id").all<{ id: string }>();
    expect(left.results.map((r) => r.id).sort()).toEqual([keptContact, keptNews, orphan].sort());
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM deliveries WHERE submission_id = ?1").bind(oldContact).first("n")).toBe(0);
    expect(await countRows("deliveries")).toBe(1);
    expect(await countRows("delivery_attempts")).toBe(2);
    expect(left.results.map((r) => r.id)).not.toContain(oldNews);

    // Running again finds nothing more to do.
    expect((await applyRetention(env.DB, env.UPLOADS, [form("contact", 90), form("newsletter", 7)], NOW)).map((r) => r.deleted)).toEqual([
      0, 0,
    ]);
  });
});

describe("applyRetention over many forms", () => {
  it("reads up to RETENTION_FORMS_PER_CHUNK forms' expired rows in one statement, and reaches every form", async () => {
    const forms = Array.from({ length: RETENTION_FORMS_PER_CHUNK + 2 }, (_, i) => form(`form-${i}`, 30));
    const kept: string[] = [];
    for (const [i, f] of forms.entries()) {
      await seedSubmission({ formId: f.id, fields: { n: i }, receivedAt: new Date(NOW - 31 * DAY).toISOString() });
      kept.push(await seedSubmission({ formId: f.id, fields: { n: i }, receivedAt: new Date(NOW - 29 * DAY).toISOString() }));
    }
    // The reads of expired rows in each D1 round trip that makes them.
    const expiredReads = (statements: string[][]) =>
      statements
        .map((trip) => trip.filter((sql) => /^SELECT id FROM submissions INDEXED BY submissions_form_received_id/.test(sql)).length)
        .filter((n) => n > 0);

    const counted = countingDb(env.DB);
    const report = await applyRetention(counted.db, env.UPLOADS, forms, NOW);
    expect(report.map((r) => [r.formId, r.deleted, r.more])).toEqual(forms.map((f) => [f.id, 1, undefined]));
    expect(expiredReads(counted.statements())).toEqual([RETENTION_FORMS_PER_CHUNK, 2]);
    const left = await env.DB.prepare("SELECT id FROM submissions").all<{ id: string }>();
    expect(left.results.map((r) => r.id).sort()).toEqual([...kept].sort());

    // A quiet run: one read per RETENTION_FORMS_PER_CHUNK forms and nothing else.
    const quiet = countingDb(env.DB);
    expect((await applyRetention(quiet.db, env.UPLOADS, forms, NOW)).every((r) => r.deleted === 0)).toBe(true);
    expect(quiet.trips()).toBe(2);
    expect(expiredReads(quiet.statements())).toEqual([RETENTION_FORMS_PER_CHUNK, 2]);
  });
});

describe("the scheduled handler", () => {
  it("runs retention with the registry's forms on each tick", async () => {
    const { runMaintenance, MAINTENANCE_JOBS } = await import("~/lib/maintenance/maintenance.server");
    const job = MAINTENANCE_JOBS.filter((j) => j.name === "apply-retention");
    expect(job).toHaveLength(1);
    const old = await seedSubmission({
      formId: "contact",
      fields: { n: 1 },
      receivedAt: new Date(NOW - 400 * DAY).toISOString(),
      deliveries: [{ status: "dead" }],
    });
    const recent = await seedSubmission({ formId: "contact", fields: { n: 2 }, receivedAt: new Date(NOW - DAY).toISOString() });
    const [result] = await runMaintenance(
      { db: env.DB, bucket: env.UPLOADS, settings: parseSettings(env), mailer: null, now: at(NOW) },
      job,
    );
    expect(result).toMatchObject({ name: "apply-retention", ok: true });
    const left = await env.DB.prepare("SELECT id FROM submissions").all<{ id: string }>();
    expect(left.results.map((r) => r.id)).toEqual([recent]);
    expect(left.results.map((r) => r.id)).not.toContain(old);
    expect(await countRows("deliveries")).toBe(0);
  });
});

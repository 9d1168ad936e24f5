import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { defineForm } from "~/forms/schema";
import { eraseByEmail } from "~/lib/submissions/erase.server";
import { moveSubmissionChunk } from "~/lib/storage/backfill.server";
import { loadDashboard } from "~/lib/storage/console-queries.server";
import { claimDue } from "~/lib/storage/deliveries.server";
import { failedAttemptStatement, markDeliveredStatement } from "~/lib/storage/delivery-outcomes.server";
import { requeueDead, requeueSubmission } from "~/lib/storage/delivery-requeue.server";
import { InvocationBudget } from "~/lib/platform/budget.server";
import { staleRateLimits } from "~/lib/storage/rate-limits.server";
import { applyRetention, RETENTION_CHUNK } from "~/lib/storage/retention.server";
import { PRUNE_CHUNK, pruneInChunks } from "~/lib/storage/sql.server";
import { listSubmissionPage, type SubmissionFilter } from "~/lib/storage/submission-list.server";
import { appFetch, formPost, standinToken } from "./helpers";
import { purgeStatements } from "~/lib/storage/purge.server";
import { runBatch } from "~/lib/storage/sql.server";
import { adminEnv, adminPost, seedSubmission, sessionCookie } from "./admin-helpers";
import { clearScale, expectKeptRight, SCALE_NOW, scaleId, seedScale } from "./scale-helpers";

// The stored state, its counts and the search index stay right through every change of a delivery or
// a submission, whoever makes it (the triggers of migration 0021, docs/decisions/060); the console is
// right while the backfill is part way; and cursor pages neither skip nor repeat while rows arrive.

const ROWS = 600;
const DAY = 86_400_000;

beforeEach(clearScale);

const stateOf = async (id: string) => env.DB.prepare("SELECT state FROM submissions WHERE id = ?").bind(id).first<string>("state");

describe("the stored state and its counts", () => {
  it("stay right through accept, drain, redeliver, release, delete, retention and erase", async () => {
    await seedScale(ROWS, { audit: 0 });
    await expectKeptRight();

    // Accept: a real post through the Worker.
    const posted = await appFetch(
      formPost("/f/contact", {
        name: "Kept Kim",
        email: "kim@example.org",
        message: "Hello, this is a real message.",
        "cf-turnstile-response": standinToken(),
      }),
    );
    expect(posted.status).toBe(303);
    await expectKeptRight();

    // The drain: a due delivery claimed, then one settles delivered and one dies.
    await env.DB.prepare("UPDATE deliveries SET next_attempt_at = 0 WHERE status = 'pending'").run();
    const claims = await claimDue(env.DB, { owner: "t", nowMs: SCALE_NOW, limit: 2, leaseMs: 60_000 });
    expect(claims).toHaveLength(2);
    await env.DB.batch([
      markDeliveredStatement(env.DB, claims[0].id, new Date(SCALE_NOW).toISOString(), null),
      failedAttemptStatement(env.DB, claims[1], "t", { attempts: 8, dead: true, nextAttemptMs: SCALE_NOW, reason: "http_status" }),
    ]);
    expect(await stateOf(claims[1].submissionId)).toBe("dead");
    await expectKeptRight();

    // Redeliver one submission, then every dead delivery of a form.
    expect((await requeueSubmission(env.DB, scaleId(3), SCALE_NOW)).requeued).toBeGreaterThan(0);
    expect(await stateOf(scaleId(3))).toBe("pending");
    await expectKeptRight();
    expect(await requeueDead(env.DB, "apply", SCALE_NOW)).toBeGreaterThan(0);
    await expectKeptRight();

    // Release from quarantine and delete, through the console.
    const appEnv = await adminEnv();
    const cookie = await sessionCookie("admin", appEnv);
    const release = await appFetch(adminPost(`/admin/submissions/${scaleId(7)}`, { intent: "release" }, { Cookie: cookie }), appEnv);
    expect(release.status).toBeLessThan(400);
    expect(await stateOf(scaleId(7))).not.toBe("quarantined");
    await expectKeptRight();
    const deleted = await appFetch(adminPost(`/admin/submissions/${scaleId(103)}`, { intent: "delete" }, { Cookie: cookie }), appEnv);
    expect(deleted.status).toBeLessThan(400);
    expect(await stateOf(scaleId(103))).toBeNull();
    await expectKeptRight();

    // Retention (the oldest rows of contact) and erase by e-mail.
    const contact = defineForm({
      id: "contact",
      title: "c",
      description: "c",
      fields: [],
      destinations: [],
      allowedOrigins: [],
      successMessage: "ok",
      retentionDays: 0.2,
    });
    const [report] = await applyRetention(env.DB, env.UPLOADS, [contact], SCALE_NOW);
    expect(report.deleted).toBeGreaterThan(0);
    await expectKeptRight();
    const audit = () => env.DB.prepare("INSERT INTO audit_log (at, actor, role, action) VALUES ('x', 'a', 'admin', 'erase')");
    expect(await eraseByEmail(env.DB, env.UPLOADS, "person42@example.org", audit)).toBe(1);
    expect(await stateOf(scaleId(42))).toBeNull();
    await expectKeptRight();
  });
});

/** Every row a filter lists, all pages walked, as ids in order. */
async function walk(filter: SubmissionFilter, limit = 25): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 200; pages++) {
    const page = await listSubmissionPage(env.DB, filter, cursor, limit);
    ids.push(...page.items.map((item) => item.submission.id));
    if (!page.next) break;
    cursor = page.next;
  }
  return ids;
}

const older = new Date(SCALE_NOW - 0.2 * DAY).toISOString().slice(0, 10);
const FILTERS: SubmissionFilter[] = [
  {},
  { status: "dead" },
  { status: "quarantined" },
  { form: "contact", status: "pending" },
  { form: "apply" },
  { from: older, to: older },
  { q: "rare" },
  { q: "hello", status: "delivered", form: "newsletter" },
];

describe("a console test's dead deliveries", () => {
  it("are kept apart per form through redeliver and delete, so the dashboard leaves them out by one row", async () => {
    await seedScale(60, { audit: 0 });
    const dead = async () => (await loadDashboard(env.DB, ["contact"], SCALE_NOW)).forms.find((f) => f.formId === "contact")!.dead;
    const before = await dead();
    const test = await seedSubmission({ fields: { name: "Sample" }, test: true, deliveries: [{ status: "dead" }, { status: "dead" }] });
    await expectKeptRight();
    expect(await dead()).toBe(before);
    expect(await env.DB.prepare("SELECT n FROM dead_test_delivery_counts WHERE form_id = 'contact'").first("n")).toBe(2);

    expect((await requeueSubmission(env.DB, test, SCALE_NOW)).requeued).toBe(2);
    await expectKeptRight();
    await env.DB.prepare("UPDATE deliveries SET status = 'dead' WHERE submission_id = ?1").bind(test).run();
    await expectKeptRight();
    await runBatch(env.DB, purgeStatements(env.DB, { ids: [test] }));
    await expectKeptRight();
    expect(await dead()).toBe(before);
    expect(await env.DB.prepare("SELECT n FROM dead_test_delivery_counts WHERE form_id = 'contact'").first("n")).toBe(0);
  });
});

describe("the backfill", () => {
  it("leaves the list, search and dashboard the same before, part way and after", async () => {
    await seedScale(ROWS, { audit: 0, moved: false });
    const before = await Promise.all(FILTERS.map((filter) => walk(filter)));
    const dashboard = await loadDashboard(env.DB, ["contact", "newsletter", "apply"], SCALE_NOW);
    expect(before[1].length).toBeGreaterThan(0);
    expect(before[6]).toHaveLength(1);

    expect(await moveSubmissionChunk(env.DB, 250)).toBe(250);
    const partway = await env.DB.prepare("SELECT COUNT(*) AS n FROM submissions WHERE state IS NULL").first<number>("n");
    expect(partway).toBe(ROWS - 250);
    expect(await Promise.all(FILTERS.map((filter) => walk(filter)))).toEqual(before);
    expect(await loadDashboard(env.DB, ["contact", "newsletter", "apply"], SCALE_NOW)).toEqual(dashboard);
    await expectKeptRight();

    while ((await moveSubmissionChunk(env.DB, 250)) > 0);
    expect(await Promise.all(FILTERS.map((filter) => walk(filter)))).toEqual(before);
    expect(await loadDashboard(env.DB, ["contact", "newsletter", "apply"], SCALE_NOW)).toEqual(dashboard);
    await expectKeptRight();
  });
});

describe("cursor pages", () => {
  it("neither skip nor repeat a row while new ones arrive, going on and coming back", async () => {
    await seedScale(ROWS, { audit: 0 });
    for (const filter of [{}, { q: "hello" }, { status: "delivered" as const }]) {
      const expected = await walk(filter, 40);
      const seen: string[] = [];
      let cursor: string | null = null;
      let page = await listSubmissionPage(env.DB, filter, cursor, 40);
      for (let k = 0; ; k++) {
        seen.push(...page.items.map((item) => item.submission.id));
        // Newer rows arrive between pages (they would come first on a fresh first page).
        await env.DB.prepare(
          `INSERT INTO submissions (id, form_id, fields, received_at, status, search_text, state)
           VALUES (?1, 'contact', '{}', ?2, 'accepted', 'hello newcomer', 'delivered')`,
        )
          .bind(crypto.randomUUID(), new Date(SCALE_NOW + (k + 1) * 60_000).toISOString())
          .run();
        if (!page.next) break;
        cursor = page.next;
        page = await listSubmissionPage(env.DB, filter, cursor, 40);
      }
      expect(seen, JSON.stringify(filter)).toEqual(expected);
      // And back: the previous page of the last one is the one before it.
      const last = await listSubmissionPage(env.DB, filter, cursor, 40);
      const back = await listSubmissionPage(env.DB, filter, last.prev, 40);
      expect(back.items.length).toBe(40);
      expect(back.items.map((item) => item.submission.id)).toEqual(
        seen.slice(seen.length - last.items.length - 40, seen.length - last.items.length),
      );
      await env.DB.prepare("DELETE FROM submissions WHERE received_at > ?").bind(new Date(SCALE_NOW).toISOString()).run();
    }
  });
});

describe("the cron's jobs in bounded chunks", () => {
  const budgetOf = (d1Queries: number) => new InvocationBudget({ d1Queries, subrequests: 50, cpuMs: 10 });

  it("retention deletes a chunk per budgeted step and goes on next run, until none is left", async () => {
    await seedScale(ROWS, { audit: 0 });
    const contact = defineForm({
      id: "contact",
      title: "c",
      description: "c",
      fields: [],
      destinations: [],
      allowedOrigins: [],
      successMessage: "ok",
      retentionDays: 0.1,
    });
    const expired = await env.DB.prepare("SELECT COUNT(*) AS n FROM submissions WHERE form_id = 'contact' AND received_at < ?")
      .bind(new Date(SCALE_NOW - 0.1 * DAY).toISOString())
      .first<number>("n");
    expect(expired).toBeGreaterThan(RETENTION_CHUNK);
    // Room for one chunk (five D1 calls) past the reserve of two.
    const [first] = await applyRetention(env.DB, env.UPLOADS, [contact], SCALE_NOW, budgetOf(7));
    expect(first).toMatchObject({ deleted: RETENTION_CHUNK, more: true });
    let total = first.deleted;
    for (let run = 0; run < 10 && total < expired!; run++)
      total += (await applyRetention(env.DB, env.UPLOADS, [contact], SCALE_NOW, budgetOf(7)))[0].deleted;
    expect(total).toBe(expired);
    await expectKeptRight();
  });

  it("limit pruning deletes PRUNE_CHUNK windows per budgeted DELETE and leaves the rest for the next run", async () => {
    await env.DB.prepare("DELETE FROM rate_limits").run();
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${PRUNE_CHUNK * 2 + 499})
       INSERT INTO rate_limits (key, window_start, count) SELECT 'k' || i, 1000, 1 FROM n`,
    ).run();
    const now = 10 * DAY;
    expect(await pruneInChunks(env.DB, [staleRateLimits(now)], budgetOf(4))).toEqual([{ deleted: PRUNE_CHUNK * 2, more: true }]);
    expect(await pruneInChunks(env.DB, [staleRateLimits(now)], budgetOf(4))).toEqual([{ deleted: 500, more: false }]);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM rate_limits").first("n")).toBe(0);
  });
});

import { createScheduledController, env } from "cloudflare:test";
import { beforeEach, describe, expect, it, vi } from "vitest";
import worker from "../../functions/index";
import { MAINTENANCE_JOBS, runMaintenance } from "~/lib/maintenance/maintenance.server";
import { parseSettings } from "~/lib/settings/settings.server";
import { appFetch, at, countingDb, countRows, formPost, sink, sinkEnv, standin, standinToken } from "./helpers";

beforeEach(async () => {
  await standin.reset();
  await sink.reset();
  await env.DB.exec("DELETE FROM delivery_attempts; DELETE FROM deliveries; DELETE FROM submissions; DELETE FROM rate_limits");
});

describe("the Worker's scheduled handler", () => {
  it("lists its jobs by name so more can be added", () => {
    expect(MAINTENANCE_JOBS.map((job) => job.name)).toEqual([
      "drain-outbox",
      "prune-rate-limits",
      "apply-retention",
      "reseal-settings",
      "backfill-submissions",
      "index-search",
      "sweep-orphaned-files",
      "tend-exports",
    ]);
  });

  it("drains due deliveries and prunes old rate-limit windows on each cron tick, with no new request", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    await sink.setMode("down");
    const res = await appFetch(
      formPost("/f/contact", {
        name: "Ada",
        email: "ada@example.org",
        message: "Hello there, engine.",
        "cf-turnstile-response": standinToken(),
      }),
      sinkEnv(),
    );
    expect(res.status).toBe(303);
    const stale = Math.floor(Date.now() / 1000) - 3 * 86_400;
    await env.DB.prepare("INSERT INTO rate_limits (key, window_start, count) VALUES ('old', ?1, 3), ('new', ?2, 1)")
      .bind(stale, Math.floor(Date.now() / 1000))
      .run();
    // Make the retry due now instead of in ~10 s.
    await env.DB.prepare("UPDATE deliveries SET next_attempt_at = ?1").bind(Date.now()).run();
    await sink.setMode("normal");

    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), sinkEnv());

    const delivery = await env.DB.prepare("SELECT status, attempts FROM deliveries").first();
    expect(delivery).toEqual({ status: "delivered", attempts: 2 });
    expect((await sink.state()).unique).toHaveLength(1);
    // The stale window is pruned; fresh ones (the test's and the post's own) stay.
    const kept = await env.DB.prepare("SELECT key FROM rate_limits WHERE key IN ('old', 'new')").all<{ key: string }>();
    expect(kept.results.map((r) => r.key)).toEqual(["new"]);
    expect(await countRows("rate_limits")).toBeGreaterThanOrEqual(1);
  });

  it("prunes stale rate-limit windows and confirmation slots on its minute, both tables in one D1 call when quiet", async () => {
    const now = Date.now();
    await env.DB.exec("DELETE FROM confirmation_limits; DELETE FROM maintenance_cursors");
    await env.DB.prepare("INSERT INTO rate_limits (key, window_start, count) VALUES ('old', ?1, 3), ('new', ?2, 1)")
      .bind(Math.floor(now / 1000) - 3 * 86_400, Math.floor(now / 1000))
      .run();
    await env.DB.prepare(
      "INSERT INTO confirmation_limits (form_id, address_key, delivery_id, sent_at) VALUES ('contact', 'a', 'd1', ?1), ('contact', 'b', 'd2', ?2)",
    )
      .bind(now - 2 * 86_400_000, now - 60_000)
      .run();
    const job = MAINTENANCE_JOBS.filter((j) => j.name === "prune-rate-limits");
    const counted = countingDb(env.DB);
    const [result] = await runMaintenance(
      { db: counted.db, bucket: env.UPLOADS, settings: parseSettings(sinkEnv()), mailer: null, now: at(now) },
      job,
    );
    expect(result).toEqual({ name: "prune-rate-limits", ok: true, result: { deleted: 2, more: false } });
    const windows = await env.DB.prepare("SELECT key FROM rate_limits WHERE key IN ('old', 'new')").all<{ key: string }>();
    expect(windows.results.map((r) => r.key)).toEqual(["new"]);
    const slots = await env.DB.prepare("SELECT address_key FROM confirmation_limits").all<{ address_key: string }>();
    expect(slots.results.map((r) => r.address_key)).toEqual(["b"]);
    // The run's first read, one batch of both DELETEs, the next run's booking.
    const deletes = counted.statements().map((trip) => trip.filter((sql) => sql.startsWith("DELETE FROM")).length);
    expect(deletes).toEqual([0, 2, 0]);
  });

  it("keeps running the other jobs when one fails", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    let ran = false;
    const results = await runMaintenance(
      { db: env.DB, bucket: env.UPLOADS, settings: parseSettings(sinkEnv()), mailer: null, now: at(Date.now()) },
      [
        { name: "broken", run: async () => Promise.reject(new Error("boom")) },
        { name: "fine", run: async () => (ran = true) },
      ],
    );
    expect(results.map((r) => [r.name, r.ok])).toEqual([
      ["broken", false],
      ["fine", true],
    ]);
    expect(ran).toBe(true);
    expect(logged).toHaveBeenCalledOnce();
  });
});

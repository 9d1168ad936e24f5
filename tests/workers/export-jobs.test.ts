import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { exportColumns, exportRow, toCsv, toJson } from "~/lib/exports/format.server";
import { advanceExport, exportFileKey, initialExportState, type ExportLimits } from "~/lib/exports/job.server";
import { EXPORT_IDLE_MS, EXPORT_TTL_MS, tendExports, workOnExport } from "~/lib/exports/run.server";
import { budgetFor } from "~/lib/platform/budget.server";
import { findExportJob, insertExportJobStatement, type ExportJob } from "~/lib/storage/export-jobs.server";
import { readExportPage } from "~/lib/storage/submission-pages.server";
import { adminEnv, adminGet, clearAdminTables, seedSubmission, sessionCookie } from "./admin-helpers";
import { deliverExportMessage, heldExportQueue } from "./export-helpers";
import { appFetch } from "./helpers";

// Export as a job into R2 (docs/decisions/085, 109): the file built over many pages, chunks, parts and
// invocations is byte for byte the one a single pass would write; each invocation keeps to the
// Free plan's budget; a step done twice (a crash before saving) changes nothing; the HTTP door starts
// a job and answers 202 and a Location that only reads it; the export queue carries it on, the cron
// takes over a job the queue lost and deletes jobs; a job is its session's, a few per person.

const FIELDS = ["name", "email", "message"];
/** A file of 12 MB built in dozens of invocations takes seconds in Miniflare, more on a busy machine. */
const SLOW = 60_000;
/** Small enough that a few hundred rows take many pages, chunks, parts and invocations. */
const TINY: ExportLimits = { keysPage: 23, rowsPage: 7, rowsPerInvocation: 21, partSize: 5 * 1024 * 1024, partsPerInvocation: 1 };

beforeEach(async () => {
  await clearAdminTables();
  await env.DB.prepare("DELETE FROM export_jobs").run();
});

/** `n` submissions a second apart from `start`, each message padded to `pad` characters, in one statement. */
async function generate(n: number, formId = "contact", start = "2026-01-01", pad = 0) {
  await env.DB.prepare(
    `WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < ?1)
     INSERT INTO submissions (id, form_id, fields, received_at, status)
     SELECT printf('%s-%06d', ?2, n), ?2, json_object('name', 'Name ' || n, 'email', 'p' || n || '@example.org', 'message', '=SUM(A' || n || ')' || replace(hex(zeroblob(?4)), '00', 'ab')),
       strftime('%Y-%m-%dT%H:%M:%fZ', ?3, '+' || n || ' seconds'), 'accepted' FROM c`,
  )
    .bind(n, formId, start, Math.ceil(pad / 2))
    .run();
}

async function newJob(format: "csv" | "json", formId: string | null = "contact"): Promise<ExportJob> {
  const job: ExportJob = {
    id: crypto.randomUUID(),
    requestedBy: "password:admin",
    owner: "token:test",
    formId,
    format,
    from: null,
    to: null,
    state: initialExportState(FIELDS),
    createdAt: Date.now(),
  };
  await insertExportJobStatement(env.DB, job).run();
  return job;
}

/** Polls like invocations do, each with a fresh Free budget, until the file is ready; returns the count. */
async function runToEnd(job: ExportJob, limits = TINY): Promise<number> {
  for (let invocation = 1; invocation <= 500; invocation++) {
    const budget = budgetFor("free");
    const { job: now } = await workOnExport({ db: env.DB, bucket: env.UPLOADS }, job.id, budget, Date.now(), limits);
    expect(budget.spent.d1Queries).toBeLessThanOrEqual(48);
    expect(budget.spent.subrequests).toBeLessThanOrEqual(50);
    if (now?.state.phase === "ready") return invocation;
  }
  throw new Error("the export did not finish in 500 invocations");
}

/** What one pass over every row writes. */
async function onePass(format: "csv" | "json", formId: string | null = "contact"): Promise<string> {
  const { items } = await readExportPage(env.DB, { formId }, null, 100_000);
  const extra = [...new Set(items.flatMap((item) => Object.keys(item.submission.fields)))].filter((k) => !FIELDS.includes(k));
  const columns = exportColumns(FIELDS, extra);
  return format === "csv" ? toCsv(columns, items.map(exportRow)) : toJson(columns, items.map(exportRow));
}

async function fileOf(job: ExportJob): Promise<string> {
  const object = await env.UPLOADS.get(exportFileKey(job.id));
  if (!object) throw new Error("no file");
  return object.text();
}

describe("an export built in steps", { timeout: SLOW }, () => {
  it.each(["csv", "json"] as const)("writes the same %s as one pass, over many pages, parts and invocations", async (format) => {
    // 12 MB: three parts of R2's 5 MiB.
    await generate(200, "contact", "2026-01-01", 60_000);
    // A name only old rows hold becomes a column of its own; a file field lists its file.
    await seedSubmission({
      fields: { name: "Ann", email: "a@example.org", message: "x", referrer: "=cmd" },
      receivedAt: "2025-06-01T00:00:00.000Z",
    });
    const file = { id: "f".repeat(32), name: "cv.pdf", type: "application/pdf", size: 3, sha256: "a".repeat(64) };
    await seedSubmission({
      fields: { name: "Bo", email: "b@example.org", message: "y", cv: [file] },
      receivedAt: "2027-01-01T00:00:00.000Z",
    });
    await generate(30, "newsletter");
    const job = await newJob(format);
    const invocations = await runToEnd(job);
    const done = (await findExportJob(env.DB, job.id))!;
    expect(done.state.rows).toBe(202);
    expect(done.state.parts.length).toBe(3);
    expect(invocations).toBeGreaterThan(10);
    const text = await fileOf(job);
    expect(text).toBe(await onePass(format));
    if (format === "csv") {
      const lines = text.split("\r\n");
      expect(lines[0]).toBe(
        "\uFEFFid,form_id,received_at,state,test,quarantine_reason,verify_hostname,verify_action,verify_challenge_ts,field:name,field:email,field:message,field:cv,field:referrer",
      );
      expect(lines).toHaveLength(204);
      expect(text).toContain(",'=SUM(A17)abab");
      expect(text).not.toContain("newsletter-");
    } else {
      const rows = JSON.parse(text) as Array<Record<string, unknown>>;
      expect(rows).toHaveLength(202);
      expect(rows[0]["field:referrer"]).toBe("=cmd");
      expect(rows[201]["field:cv"]).toEqual([file]);
    }
    // The chunks are gone; only the file is kept.
    const listed = await env.UPLOADS.list({ prefix: `exports/${job.id}/` });
    expect(listed.objects.map((o) => o.key)).toEqual([exportFileKey(job.id)]);
  });

  it("exports every form when asked for all", async () => {
    await generate(20);
    await generate(15, "newsletter", "2026-01-01T00:00:10Z");
    const job = await newJob("csv", null);
    await runToEnd(job);
    const text = await fileOf(job);
    expect(text).toBe(await onePass("csv", null));
    expect(text.split("\r\n").filter((line) => line.startsWith("newsletter-"))).toHaveLength(15);
  });

  it("writes the same file when invocations did work they never saved (a crash, a lost lease)", async () => {
    await generate(60);
    const job = await newJob("csv");
    const slow = { ...TINY, rowsPerInvocation: 7 };
    for (let i = 0; i < 3; i++) await workOnExport({ db: env.DB, bucket: env.UPLOADS }, job.id, budgetFor("free"), Date.now(), slow);
    const saved = (await findExportJob(env.DB, job.id))!;
    expect(saved.state.rows).toBeGreaterThan(0);
    // Two invocations' work from the same saved state, thrown away: their chunks and parts stay in R2.
    for (let i = 0; i < 2; i++) {
      const lost = await advanceExport({ db: env.DB, bucket: env.UPLOADS }, saved, budgetFor("free"), TINY);
      expect(lost.rows).toBeGreaterThan(saved.state.rows);
    }
    await runToEnd(job);
    expect(await fileOf(job)).toBe(await onePass("csv"));
  });
});

describe("GET /admin/export", { timeout: SLOW }, () => {
  let admin = "";
  let held = heldExportQueue();
  beforeEach(async () => {
    admin = await sessionCookie("admin");
    held = heldExportQueue();
  });

  async function appEnv(): Promise<Env> {
    return { ...(await adminEnv()), EXPORT_QUEUE: held.queue } as Env;
  }

  async function get(path: string, cookie = admin, headers: Record<string, string> = {}) {
    return appFetch(adminGet(path, cookie, headers), await appEnv());
  }

  /** Hands the queue's messages to the consumer one at a time, as the queue does, until none is left. */
  async function runQueue(): Promise<number> {
    let invocations = 0;
    while (held.sent.length > 0 && invocations < 200) {
      const result = await deliverExportMessage(held.sent.shift()!, await appEnv());
      expect(result.explicitAcks).toEqual(["m"]);
      invocations++;
    }
    return invocations;
  }

  it("starts a job without working on it; reads change nothing; the queue alone finishes it", async () => {
    await generate(2600);
    const started = await get("/admin/export?form=contact&format=csv");
    expect(started.status).toBe(202);
    expect(started.headers.get("retry-after")).toBe("2");
    const location = started.headers.get("location")!;
    expect(location).toMatch(/^\/admin\/export\/[0-9a-f-]{36}$/);
    const id = location.split("/").pop()!;
    // The request only started it: no row read, nothing written to R2, one message for the queue.
    expect(await started.json()).toEqual({ id, phase: "keys", rows: 0, total: 0, secondsLeft: null });
    expect((await env.UPLOADS.list({ prefix: `exports/${id}/` })).objects).toEqual([]);
    expect(held.sent).toEqual([{ exportJob: id }]);
    // A tab that polls changes nothing but what it sees.
    const before = await env.DB.prepare("SELECT state, updated_at FROM export_jobs WHERE id = ?").bind(id).first();
    for (let i = 0; i < 3; i++) {
      const poll = await get(location);
      expect(poll.status).toBe(202);
      expect(await poll.json()).toMatchObject({ phase: "keys", rows: 0 });
    }
    expect(await env.DB.prepare("SELECT state, updated_at FROM export_jobs WHERE id = ?").bind(id).first()).toEqual(before);
    // The queue carries it to the end, each message sending the next.
    const invocations = await runQueue();
    expect(invocations).toBeGreaterThan(2);
    expect((await findExportJob(env.DB, id))!.state).toMatchObject({ phase: "ready", rows: 2600, total: 2600 });
    const answer = await get(location);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-disposition")).toBe('attachment; filename="gatepost-contact-start-to-now.csv"');
    const text = await answer.text();
    expect(text.split("\r\n")).toHaveLength(2602);
    expect(text).toBe(await onePass("csv"));
    // One audit row, for the request that started it.
    const audit = await env.DB.prepare("SELECT target, detail FROM audit_log WHERE action = 'export'").all();
    expect(audit.results).toEqual([{ target: "contact", detail: expect.stringContaining(`"job":"${id}"`) }]);
  });

  it("sends a browser to the job's page in the console, which shows rows of the total, a time left and the way back", async () => {
    await generate(1500);
    const started = await get("/admin/export?form=contact", admin, { Accept: "text/html" });
    expect(started.status).toBe(303);
    const id = held.sent[0].exportJob;
    expect(started.headers.get("location")).toBe(`/admin/exports/${id}?auto=1`);
    // One invocation: the keys phase and Free's first rows, then the page as it stands.
    await deliverExportMessage(held.sent.shift()!, await appEnv());
    await env.DB.prepare("UPDATE export_jobs SET state = json_set(state, '$.phaseFrom', ?) WHERE id = ?")
      .bind(Date.now() - 10_000, id)
      .run();
    const page = await get(`/admin/exports/${id}?auto=1`, admin, { Accept: "text/html" });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Preparing your export");
    expect(html).toMatch(/Writing the rows: [\d,]+ of 1,500 rows \(about \d+ (s|min) left\)/);
    expect(html).toContain('href="/admin/submissions"');
    expect(html).toContain('aria-label="Operator console"');
    // Without script it comes back by itself; with script it asks without reloading.
    expect(html).toContain(`<noscript><meta http-equiv="refresh" content="2;url=/admin/exports/${id}?auto=1"/></noscript>`);
  });

  it("keeps a job to the session that asked, even from another session of the same password", async () => {
    await generate(30);
    const started = await get("/admin/export?form=contact");
    await started.arrayBuffer();
    const location = started.headers.get("location")!;
    const id = location.split("/").pop()!;
    for (const other of [await sessionCookie("admin"), await sessionCookie("viewer")]) {
      for (const path of [location, `/admin/exports/${id}`]) {
        const answer = await get(path, other, { Accept: "text/html" });
        expect(answer.status).toBe(404);
        await answer.arrayBuffer();
      }
    }
    const own = await get(location);
    expect(own.status).toBe(202);
    await own.arrayBuffer();
    const crossSite = await get(location, admin, { "Sec-Fetch-Site": "cross-site" });
    expect(crossSite.status).toBe(403);
    await crossSite.arrayBuffer();
    expect((await get("/admin/export/nope")).status).toBe(404);
  });

  it("lets a person run a few exports at once, and refuses one more with a catalogue code", async () => {
    await generate(30);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const started = await get("/admin/export?form=contact");
      expect(started.status).toBe(202);
      ids.push(((await started.json()) as { id: string }).id);
    }
    // Another session of the same password is the same person.
    const refused = await get("/admin/export?form=contact", await sessionCookie("admin"));
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ code: "export_jobs_limit" });
    expect((await env.DB.prepare("SELECT COUNT(*) AS n FROM export_jobs").first())!.n).toBe(3);
    expect((await env.DB.prepare("SELECT COUNT(*) AS n FROM audit_log WHERE action = 'export'").first())!.n).toBe(3);
    // Someone else is not held back, and a finished job frees a place.
    const viewer = await get("/admin/export?form=contact", await sessionCookie("viewer"));
    expect(viewer.status).toBe(202);
    await viewer.arrayBuffer();
    await env.DB.prepare("UPDATE export_jobs SET finished_at = 1 WHERE id = ?").bind(ids[0]).run();
    const again = await get("/admin/export?form=contact");
    expect(again.status).toBe(202);
    await again.arrayBuffer();
  });

  it("is carried on by the cron when the queue lost it, and deleted with its file after a day", async () => {
    await generate(1500);
    const started = await get("/admin/export?form=contact&format=json");
    expect(started.status).toBe(202);
    await started.arrayBuffer();
    const id = started.headers.get("location")!.split("/").pop()!;
    held.sent.length = 0;
    // With the queue: a job touched just now is the queue's; one idle for a while gets a message again.
    expect(await tendExports({ db: env.DB, bucket: env.UPLOADS, plan: "free", nowMs: Date.now(), queue: held.queue })).toMatchObject({
      advanced: null,
    });
    await tendExports({ db: env.DB, bucket: env.UPLOADS, plan: "free", nowMs: Date.now() + EXPORT_IDLE_MS + 1, queue: held.queue });
    expect(held.sent).toEqual([{ exportJob: id }]);
    expect((await findExportJob(env.DB, id))!.state.phase).toBe("keys");
    // Without one, the cron works on it itself.
    for (let tick = 0; tick < 30 && (await findExportJob(env.DB, id))!.state.phase !== "ready"; tick++) {
      await tendExports({ db: env.DB, bucket: env.UPLOADS, plan: "free", nowMs: Date.now() });
    }
    expect((await findExportJob(env.DB, id))!.state.phase).toBe("ready");
    const rows = JSON.parse(await (await env.UPLOADS.get(exportFileKey(id)))!.text()) as unknown[];
    expect(rows).toHaveLength(1500);
    expect(await tendExports({ db: env.DB, bucket: env.UPLOADS, plan: "free", nowMs: Date.now() + EXPORT_TTL_MS + 1 })).toMatchObject({
      deleted: 1,
    });
    expect(await findExportJob(env.DB, id)).toBeNull();
    expect((await env.UPLOADS.list({ prefix: `exports/${id}/` })).objects).toEqual([]);
    const gone = await get(`/admin/export/${id}`);
    expect(gone.status).toBe(404);
    await gone.arrayBuffer();
  });

  it("leaves a job another invocation holds to it, sending no second message", async () => {
    await generate(30);
    const started = await get("/admin/export?form=contact");
    await started.arrayBuffer();
    const id = held.sent.shift()!.exportJob;
    await env.DB.prepare("UPDATE export_jobs SET lease_until = ? WHERE id = ?")
      .bind(Date.now() + 60_000, id)
      .run();
    const result = await deliverExportMessage({ exportJob: id }, await appEnv());
    expect(result.explicitAcks).toEqual(["m"]);
    expect(held.sent).toEqual([]);
    expect((await findExportJob(env.DB, id))!.state.phase).toBe("keys");
  });
});

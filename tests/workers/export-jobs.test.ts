import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { exportColumns, exportRow, toCsv, toJson } from "~/lib/exports/format.server";
import { advanceExport, exportFileKey, initialExportState, type ExportLimits } from "~/lib/exports/job.server";
import { EXPORT_TTL_MS, tendExports, workOnExport } from "~/lib/exports/run.server";
import { budgetFor } from "~/lib/platform/budget.server";
import { findExportJob, insertExportJobStatement, type ExportJob } from "~/lib/storage/export-jobs.server";
import { readExportPage } from "~/lib/storage/submission-pages.server";
import { adminEnv, adminGet, clearAdminTables, seedSubmission, sessionCookie } from "./admin-helpers";
import { appFetch } from "./helpers";

// Export as a job into R2 (docs/decisions/085): the file built over many pages, chunks, parts and
// invocations is byte for byte the one a single pass would write; each invocation keeps to the
// Free plan's budget; a step done twice (a crash before saving) changes nothing; the HTTP door
// answers 202 and a Location to poll until the file is ready; the cron carries jobs on and deletes them.

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
    const now = await workOnExport({ db: env.DB, bucket: env.UPLOADS }, job.id, budget, Date.now(), limits);
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
  beforeEach(async () => {
    admin = await sessionCookie("admin");
  });

  async function get(path: string, cookie = admin, headers: Record<string, string> = {}) {
    return appFetch(adminGet(path, cookie, headers), await adminEnv());
  }

  it("answers 202 with a Location to poll, 202 until the file is ready, then the file", async () => {
    await generate(2600);
    const started = await get("/admin/export?form=contact&format=csv");
    expect(started.status).toBe(202);
    expect(started.headers.get("retry-after")).toBe("2");
    const location = started.headers.get("location")!;
    expect(location).toMatch(/^\/admin\/export\/[0-9a-f-]{36}$/);
    expect(await started.json()).toMatchObject({ phase: "rows", rows: 1000 });
    let answer = await get(location);
    let polls = 1;
    while (answer.status === 202 && polls < 20) {
      expect(answer.headers.get("location")).toBe(location);
      await answer.arrayBuffer();
      answer = await get(location);
      polls++;
    }
    expect(answer.status).toBe(200);
    expect(polls).toBeGreaterThan(1);
    expect(answer.headers.get("content-disposition")).toBe('attachment; filename="gatepost-contact-start-to-now.csv"');
    const text = await answer.text();
    expect(text.split("\r\n")).toHaveLength(2602);
    expect(text).toBe(await onePass("csv"));
    // One audit row, for the request that started it.
    const audit = await env.DB.prepare("SELECT target, detail FROM audit_log WHERE action = 'export'").all();
    expect(audit.results).toEqual([{ target: "contact", detail: expect.stringContaining(`"job":"${location.split("/").pop()}"`) }]);
  });

  it("tells a browser to come back by itself, and keeps a job to the person who asked", async () => {
    await generate(1500);
    const started = await get("/admin/export?form=contact", admin, { Accept: "text/html" });
    expect(started.status).toBe(202);
    const html = await started.text();
    const location = started.headers.get("location")!;
    expect(html).toContain(`<meta http-equiv="refresh" content="2;url=${location}">`);
    const viewer = await sessionCookie("viewer");
    const other = await get(location, viewer);
    expect(other.status).toBe(404);
    await other.arrayBuffer();
    const crossSite = await get(location, admin, { "Sec-Fetch-Site": "cross-site" });
    expect(crossSite.status).toBe(403);
    await crossSite.arrayBuffer();
    expect((await get("/admin/export/nope")).status).toBe(404);
  });

  it("is carried on by the cron without polls, and deleted with its file after a day", async () => {
    await generate(1500);
    const started = await get("/admin/export?form=contact&format=json");
    expect(started.status).toBe(202);
    await started.arrayBuffer();
    const id = started.headers.get("location")!.split("/").pop()!;
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
});

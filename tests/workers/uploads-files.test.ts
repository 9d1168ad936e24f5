import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { FORMS } from "~/lib/forms/registry";
import { applyRetention } from "~/lib/storage/retention.server";
import { signFileLink } from "~/lib/uploads/file-links.server";
import { sweepOrphanedFiles, SWEEP_GRACE_MS } from "~/lib/uploads/orphan-sweep.server";
import { newFileId } from "~/lib/storage/file-objects.server";
import { DOWNLOAD_HEADERS } from "~/lib/uploads/download.server";
import { adminEnv, adminGet, adminPost, clearAdminTables, seedSubmission, sessionCookie } from "./admin-helpers";
import { exportThrough } from "./export-helpers";
import { appFetch, at, clearTables, countingDb, countRows, FILE_LINK_SECRET, pdfBytes, sink, sinkEnv, standin } from "./helpers";
import { applyPost, bucketKeys, clearBucket, clearCursors, sha256Hex } from "./upload-helpers";

// ADR 051 and 052: files are served only through Gatepost, always as attachments, to a signed-in
// console user or through a signed link until it expires; they go with their submission (delete,
// erase, retention), and an object whose submission never got stored is swept away.

const DAY = 86_400_000;
const PUBLIC_URL = "https://forms.example.org";

beforeEach(async () => {
  await standin.reset();
  await sink.reset();
  await clearTables();
  await clearAdminTables();
  await clearBucket();
  await clearCursors();
});

type Cv = { id: string; name: string; type: string; size: number; sha256: string };

/** Sends one application and returns its submission id and stored CV. */
async function apply(cv = pdfBytes(5000), name = "Zoë's CV (final).pdf", appEnv?: Env) {
  const response = await appFetch(applyPost({}, [{ field: "cv", name, bytes: cv }]), appEnv ?? (await adminEnv()));
  expect(response.status).toBe(303);
  const id = response.headers.get("location")!.split("/").pop()!;
  const row = await env.DB.prepare("SELECT fields FROM submissions WHERE id = ?1").bind(id).first<{ fields: string }>();
  return { id, file: (JSON.parse(row!.fields) as { cv: Cv[] }).cv[0], bytes: cv };
}

function expectDownloadHeaders(response: Response, file: Cv) {
  expect(response.status).toBe(200);
  expect(response.headers.get("content-disposition")).toBe(
    `attachment; filename="Zoe_s CV (final).pdf"; filename*=UTF-8''Zo%C3%AB%27s%20CV%20%28final%29.pdf`,
  );
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  expect(response.headers.get("content-security-policy")).toBe("sandbox; default-src 'none'");
  expect(response.headers.get("content-type")).toBe("application/pdf");
  expect(response.headers.get("content-length")).toBe(String(file.size));
  expect(response.headers.get("cache-control")).toBe("private, no-store");
}

describe("downloads from the console", () => {
  it("serve the bytes as an attachment to an admin and a viewer, with the headers that keep it from running", async () => {
    const { id, file, bytes } = await apply();
    const appEnv = await adminEnv();
    for (const role of ["admin", "viewer"] as const) {
      const response = await appFetch(adminGet(`/admin/files/${id}/${file.id}`, await sessionCookie(role, appEnv)), appEnv);
      // Read first: an R2 body left open by a failed assertion would break the next tests' storage.
      const got = new Uint8Array(await response.arrayBuffer());
      expectDownloadHeaders(response, file);
      expect(got).toEqual(bytes);
    }
  });

  it("answer 401 without a session, and 404 for a file the submission does not list", async () => {
    const { id, file } = await apply();
    const appEnv = await adminEnv();
    expect((await appFetch(adminGet(`/admin/files/${id}/${file.id}`), appEnv)).status).toBe(401);
    const other = await apply(pdfBytes(100, "other"), "other.pdf");
    const cookie = await sessionCookie("admin", appEnv);
    // A real file id under another submission's id is not a way in.
    const crossed = await appFetch(adminGet(`/admin/files/${id}/${other.file.id}`, cookie), appEnv);
    expect(crossed.status).toBe(404);
    expect(crossed.headers.get("content-security-policy")).toBe("sandbox; default-src 'none'");
  });

  it("are listed on the submission's page, linked by name", async () => {
    const { id, file } = await apply();
    const appEnv = await adminEnv();
    const html = (
      await (await appFetch(adminGet(`/admin/submissions/${id}`, await sessionCookie("viewer", appEnv)), appEnv)).text()
    ).replace(/<!-- -->/g, "");
    expect(html).toContain(`href="/admin/files/${id}/${file.id}" download="">Zoë&#x27;s CV (final).pdf</a>`);
    expect(html).toContain(file.sha256);
  });
});

describe("signed links", () => {
  async function linkFor(id: string, fileId: string, nowMs = Date.now()) {
    const link = await signFileLink({ publicUrl: PUBLIC_URL, secrets: [FILE_LINK_SECRET], submissionId: id, fileId, nowMs });
    return new URL(link!.url);
  }
  const get = (url: URL) => appFetch(new Request(`http://localhost${url.pathname}${url.search}`));

  it("in the webhook payload fetch the very bytes its SHA-256 names, as an attachment", async () => {
    const appEnv = sinkEnv({ APPLY_WEBHOOK_URL: sink.url(), APPLY_WEBHOOK_SECRET: sink.secret(), PUBLIC_URL, CONTACT_WEBHOOK_URL: "" });
    const { id, file, bytes } = await apply(undefined, undefined, appEnv);
    const payload = (await sink.state()).unique[0].payload;
    expect(payload.submission.files).toEqual([
      {
        ...file,
        field: "cv",
        url: expect.stringMatching(new RegExp(`^${PUBLIC_URL}/files/${id}/${file.id}\\?expires=\\d+&signature=[\\w-]{43}$`)),
        url_expires_at: expect.any(String),
      },
    ]);
    expect(Date.parse(payload.submission.files[0].url_expires_at) - Date.now()).toBeGreaterThan(6.9 * DAY);
    const response = await get(new URL(payload.submission.files[0].url));
    const got = new Uint8Array(await response.arrayBuffer());
    expectDownloadHeaders(response, file);
    expect(got).toEqual(bytes);
    expect(await sha256Hex(got)).toBe(payload.submission.files[0].sha256);
  });

  it("answer 410 once expired, and 404 when signed for another file or altered", async () => {
    const { id, file } = await apply();
    const other = await apply(pdfBytes(100, "other"), "other.pdf");
    const expired = await get(await linkFor(id, file.id, Date.now() - 8 * DAY));
    expect(expired.status).toBe(410);
    expect(expired.headers.get("Gatepost-Error-Code")).toBe("file_link_expired");
    expect(expired.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const good = await linkFor(id, file.id);
    const swapped = new URL(good);
    swapped.pathname = `/files/${id}/${other.file.id}`;
    expect((await get(swapped)).status).toBe(404);
    const later = new URL(good);
    later.searchParams.set("expires", String(Number(good.searchParams.get("expires")) + 3600));
    expect((await get(later)).status).toBe(404);
    const bare = new URL(good);
    bare.search = "";
    expect((await get(bare)).status).toBe(404);
    const ok = await get(good);
    expect(ok.status).toBe(200);
    // Read to the end: an R2 body left open keeps its storage busy past the test (vitest-pool-workers' isolated storage).
    expect((await ok.arrayBuffer()).byteLength).toBe(file.size);
  });

  it("lead to nothing for a quarantined submission, whose bytes were never kept", async () => {
    const response = await appFetch(applyPost({ _gp_hp: "bot" }), await adminEnv());
    expect(response.status).toBe(303);
    const row = await env.DB.prepare("SELECT id, fields FROM submissions").first<{ id: string; fields: string }>();
    const file = (JSON.parse(row!.fields) as { cv: Cv[] }).cv[0];
    expect((await get(await linkFor(row!.id, file.id))).status).toBe(404);
  });
});

describe("every refusal of a download route", () => {
  /** D1 that refuses every round trip, as when it is unreachable. */
  function downDb(): D1Database {
    const fail = () => Promise.reject(new Error("D1_ERROR: Network connection lost."));
    const statement = { bind: () => statement, first: fail, all: fail, run: fail, raw: fail };
    return { prepare: () => statement, batch: fail, exec: fail } as unknown as D1Database;
  }

  it("carries the download headers, as plain text: no session, bad ids, storage down, other methods, bad links", async () => {
    const appEnv = await adminEnv();
    const cookie = await sessionCookie("admin", appEnv);
    const link = await signFileLink({
      publicUrl: PUBLIC_URL,
      secrets: [FILE_LINK_SECRET],
      submissionId: "s1",
      fileId: "f1",
      nowMs: Date.now(),
    });
    const linked = new URL(link!.url);
    const cases: Array<[string, Request, Env, number]> = [
      ["console, no session", adminGet("/admin/files/s1/f1"), appEnv, 401],
      ["console, bad id", adminGet("/admin/files/s1/not%20an%20id", cookie), appEnv, 404],
      ["console, storage down", adminGet("/admin/files/s1/f1", cookie), { ...appEnv, DB: downDb() }, 503],
      ["console, a POST", adminPost("/admin/files/s1/f1", {}, { Cookie: cookie }), appEnv, 405],
      ["link, not ours", new Request("http://localhost/files/s1/f1?expires=1&signature=x"), appEnv, 404],
      ["link, storage down", new Request(`http://localhost${linked.pathname}${linked.search}`), { ...appEnv, DB: downDb() }, 503],
      ["link, a POST", new Request(`http://localhost${linked.pathname}${linked.search}`, { method: "POST" }), appEnv, 405],
    ];
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    for (const [name, request, e, status] of cases) {
      const response = await appFetch(request, e);
      await response.arrayBuffer();
      expect([name, response.status]).toEqual([name, status]);
      for (const [header, value] of Object.entries(DOWNLOAD_HEADERS)) expect([name, response.headers.get(header)]).toEqual([name, value]);
      expect([name, response.headers.get("content-type")]).toEqual([name, "text/plain; charset=utf-8"]);
    }
    logged.mockRestore();
  });
});

describe("files live and die with their submission", () => {
  it("a console delete removes the submission's objects", async () => {
    const { id } = await apply();
    const kept = await apply(pdfBytes(100, "kept"), "kept.pdf");
    const appEnv = await adminEnv();
    const response = await appFetch(
      adminPost(`/admin/submissions/${id}`, { intent: "delete" }, { Cookie: await sessionCookie("admin", appEnv) }),
      appEnv,
    );
    expect(response.status).toBe(303);
    expect(await bucketKeys()).toEqual([`files/${kept.file.id}`]);
  });

  it("an erase by e-mail removes the objects of every submission it erases", async () => {
    await apply();
    await apply(pdfBytes(200, "second"), "second.pdf");
    const other = await appFetch(applyPost({ email: "grace@example.org" }), await adminEnv());
    expect(other.status).toBe(303);
    const graceId = other.headers.get("location")!.split("/").pop()!;
    const graceFile = JSON.parse(
      (await env.DB.prepare("SELECT fields FROM submissions WHERE id = ?1").bind(graceId).first<{ fields: string }>())!.fields,
    ).cv[0].id;
    expect(await bucketKeys()).toHaveLength(3);
    const appEnv = await adminEnv();
    const erased = await appFetch(
      adminPost(
        "/admin/erase",
        { intent: "erase", email: "ada@example.org", confirm: "yes" },
        { Cookie: await sessionCookie("admin", appEnv) },
      ),
      appEnv,
    );
    expect(erased.status).toBe(200);
    expect(await bucketKeys()).toEqual([`files/${graceFile}`]);
    expect(await countRows("submissions")).toBe(1);
  });

  it("retention removes the objects of the submissions it deletes, and keeps the rest", async () => {
    const old = await apply();
    const recent = await apply(pdfBytes(100, "recent"), "recent.pdf");
    const apply_ = FORMS.find((f) => f.id === "apply")!;
    // Age the first one past the form's retention.
    await env.DB.prepare("UPDATE submissions SET received_at = ?1 WHERE id = ?2")
      .bind(new Date(Date.now() - (apply_.retentionDays + 1) * DAY).toISOString(), old.id)
      .run();
    const report = await applyRetention(env.DB, env.UPLOADS, FORMS, Date.now());
    expect(report.find((r) => r.formId === "apply")?.deleted).toBe(1);
    expect(await bucketKeys()).toEqual([`files/${recent.file.id}`]);
  });

  it("the export lists them: JSON as objects, CSV one line per file, a name that starts a formula neutralised", async () => {
    const { file } = await apply(pdfBytes(300, "export"), "=HYPERLINK(evil).pdf");
    const appEnv = await adminEnv();
    const cookie = await sessionCookie("viewer", appEnv);
    const json = await (await exportThrough("/admin/export?form=apply&format=json", cookie, appEnv)).json<Array<Record<string, unknown>>>();
    expect(json.map((row) => row["field:cv"])).toEqual([[file]]);
    const csv = await (await exportThrough("/admin/export?form=apply&format=csv", cookie, appEnv)).text();
    expect(csv).toContain(`'=HYPERLINK(evil).pdf (application/pdf, 300 bytes, sha256 ${file.sha256}, id ${file.id})`);
  });

  it("a delete whose R2 call fails deletes nothing, so no object outlives its row", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const { id } = await apply();
    const appEnv = await adminEnv();
    const failing = new Proxy(env.UPLOADS, {
      get: (target, key) =>
        key === "delete" ? () => Promise.reject(new Error("R2 is down (test)")) : Reflect.get(target, key)?.bind?.(target),
    });
    const response = await appFetch(
      adminPost(`/admin/submissions/${id}`, { intent: "delete" }, { Cookie: await sessionCookie("admin", appEnv) }),
      { ...appEnv, UPLOADS: failing },
    );
    expect(response.status).toBe(500);
    expect(await countRows("submissions")).toBe(1);
    expect(await bucketKeys()).toHaveLength(1);
  });
});

describe("the orphan sweep", () => {
  const NOW = Date.now();
  async function putObject(submission: string, atMs: number) {
    const id = newFileId(atMs);
    await env.UPLOADS.put(`files/${id}`, pdfBytes(64), { customMetadata: { submission, field: "cv" } });
    return `files/${id}`;
  }

  it("removes old objects whose submission was never stored, keeps the rest, and judges each only once", async () => {
    const stored = await seedSubmission({ formId: "apply", fields: { name: "Ada" } });
    const orphanOld = await putObject(crypto.randomUUID(), NOW - 3 * SWEEP_GRACE_MS);
    const keptOld = await putObject(stored, NOW - 2 * SWEEP_GRACE_MS);
    const orphanYoung = await putObject(crypto.randomUUID(), NOW - 60_000);
    const foreign = "files/not-ours";
    await env.UPLOADS.put(foreign, "x");
    const other = "elsewhere/keep-me";
    await env.UPLOADS.put(other, "x");

    expect(await sweepOrphanedFiles(env.DB, env.UPLOADS, NOW)).toEqual({ judged: 2, removed: 1 });
    expect(await bucketKeys()).toEqual([other, foreign, keptOld, orphanYoung].sort());
    expect(await bucketKeys()).not.toContain(orphanOld);
    // The next run goes on from where this one stopped: nothing old is judged again.
    expect(await sweepOrphanedFiles(env.DB, env.UPLOADS, NOW)).toEqual({ judged: 0, removed: 0 });
    // Once the young orphan is past its grace, it goes too.
    expect(await sweepOrphanedFiles(env.DB, env.UPLOADS, NOW + SWEEP_GRACE_MS)).toEqual({ judged: 1, removed: 1 });
    expect(await bucketKeys()).toEqual([other, foreign, keptOld].sort());
    const cursor = await env.DB.prepare("SELECT value FROM maintenance_cursors WHERE name = 'orphan-sweep'").first<{ value: string }>();
    expect(cursor?.value).toBe(orphanYoung);
  });

  it("walks a long backlog a page at a time, within its budget per run", async () => {
    const owner = crypto.randomUUID();
    const keys = [];
    for (let i = 0; i < 5; i++) keys.push(await putObject(owner, NOW - DAY + i));
    expect(await sweepOrphanedFiles(env.DB, env.UPLOADS, NOW, { maxPages: 1 })).toEqual({ judged: 5, removed: 5 });
    expect(await bucketKeys()).toEqual([]);
  });

  it("runs as the cron's job with the Worker's bucket, its cursor read with the run's first read", async () => {
    const { runMaintenance, MAINTENANCE_JOBS } = await import("~/lib/maintenance/maintenance.server");
    const stored = await seedSubmission({ formId: "apply", fields: { name: "Ada" } });
    await putObject(stored, NOW - DAY);
    await putObject(crypto.randomUUID(), NOW - DAY + 1);
    const jobs = MAINTENANCE_JOBS.filter((job) => job.name === "sweep-orphaned-files");
    const { parseSettings } = await import("~/lib/settings/settings.server");
    const run = (db: D1Database) =>
      runMaintenance({ db, bucket: env.UPLOADS, settings: parseSettings(env), mailer: null, now: at(NOW) }, jobs);
    expect(await run(env.DB)).toEqual([{ name: "sweep-orphaned-files", ok: true, result: { judged: 2, removed: 1 } }]);

    // Its next minute: it goes on after the kept object (judged once) without a read of its own for the cursor.
    await putObject(crypto.randomUUID(), NOW - DAY + 2);
    await env.DB.prepare("DELETE FROM maintenance_cursors WHERE name LIKE 'next-run:%'").run();
    const counted = countingDb(env.DB);
    expect(await run(counted.db)).toEqual([{ name: "sweep-orphaned-files", ok: true, result: { judged: 1, removed: 1 } }]);
    const reads = counted.statements().flat();
    expect(reads.some((sql) => /FROM maintenance_cursors WHERE name IN/.test(sql))).toBe(true);
    expect(reads.filter((sql) => /^SELECT value FROM maintenance_cursors/.test(sql))).toEqual([]);
  });
});

describe("/healthz and the dashboard", () => {
  it("report a Worker without its R2 binding while a form takes files, and a missing link secret, by name", async () => {
    const appEnv = await adminEnv();
    const health = async (e: Env) => (await appFetch(new Request("http://localhost/healthz"), e)).json();
    expect(await health(appEnv)).toEqual({ status: "ok", db: "ok" });
    const { UPLOADS: _gone, ...rest } = appEnv;
    expect(await health({ ...rest, FILE_LINK_SECRET: "" } as Env)).toEqual({
      status: "degraded",
      db: "ok",
      uploads: "missing",
      settings: ["FILE_LINK_SECRET"],
    });
    const html = (await (await appFetch(adminGet("/admin", await sessionCookie("admin", appEnv)), rest as Env)).text()).replace(
      /<!-- -->/g,
      "",
    );
    expect(html).toContain("The Worker has no R2 binding named UPLOADS, so apply refuse posts with files");
  });
});

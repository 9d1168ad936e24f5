import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { parseListFilters } from "~/lib/submissions/list-filters.server";
import { listSubmissionPage } from "~/lib/storage/submission-list.server";
import { moveSubmissionChunk } from "~/lib/storage/backfill.server";
import { MAINTENANCE_JOBS } from "~/lib/maintenance/maintenance.server";
import { parseSettings } from "~/lib/settings/settings.server";
import { appFetch, at, clearTables, countingDb, formPost, standin, standinToken, testEnv } from "./helpers";
import { adminEnv, adminGet, clearAdminTables, seedSubmission, sessionCookie } from "./admin-helpers";

// The console's search folds case beyond ASCII: "ZOË" finds "Zoë", "STRASSE" finds "Straße". SQLite's
// lower() folds ASCII only, so each submission keeps a folded search text, written with it, and the
// search stays one round trip.

async function accept(fields: Record<string, string>): Promise<string> {
  const response = await appFetch(formPost("/f/contact", { ...fields, "cf-turnstile-response": standinToken() }));
  expect(response.status).toBe(303);
  return (response.headers.get("location") ?? "").split("/").pop()!;
}

async function search(q: string): Promise<string[]> {
  const { filter, cursor } = parseListFilters(new URLSearchParams({ q }));
  const { items } = await listSubmissionPage(env.DB, filter, cursor);
  return items.map((item) => item.submission.id);
}

beforeEach(async () => {
  await standin.reset();
  await clearTables();
  await clearAdminTables();
});

describe("console search beyond ASCII", () => {
  it("finds a submission whatever the case of its non-ASCII letters", async () => {
    const zoe = await accept({ name: "Zoë Ångström", email: "z.a@example.org", message: "Grüße aus der Straße, ΟΔΟΣ 5." });
    const other = await accept({ name: "Zoe Angstrom", email: "plain@example.org", message: "Plain ASCII only, thanks." });
    for (const q of ["ZOË", "zoë", "ångström", "ÅNGSTRÖM", "GRÜSSE", "straße", "STRASSE", "οδος", "ΟΔΟΣ 5"]) {
      expect(await search(q), q).toEqual([zoe]);
    }
    expect((await search("zoe")).sort()).toEqual([other]);
    // The page itself, as the operator uses it.
    const appEnv = await adminEnv();
    const html = await (
      await appFetch(adminGet(`/admin/submissions?q=${encodeURIComponent("ZOË")}`, await sessionCookie("admin", appEnv)), appEnv)
    ).text();
    expect(html).toContain(zoe);
    expect(html).not.toContain(other);
  });

  it("searches in one round trip", async () => {
    await accept({ name: "Zoë", email: "zoe@example.org", message: "One round trip, please." });
    const recorded = countingDb(env.DB);
    await listSubmissionPage(recorded.db, { q: "ZOË" }, null);
    expect(recorded.trips()).toBe(1);
  });

  it("folds and indexes submissions stored before the search text existed, and finds them meanwhile as before", async () => {
    const old = await seedSubmission({ fields: { name: "Zoë Old", email: "old@example.org", message: "From before." } });
    // Until moved, an older row is found the way it always was (ASCII case only).
    expect(await search("zoë old")).toEqual([old]);
    expect(await search("ZOË OLD")).toEqual([]);
    expect(await moveSubmissionChunk(env.DB, 100)).toBe(1);
    expect(await search("ZOË OLD")).toEqual([old]);
    expect(await env.DB.prepare("SELECT state FROM submissions WHERE id = ?").bind(old).first("state")).toBe("stored");
    expect(await moveSubmissionChunk(env.DB, 100)).toBe(0);
  });

  it("is folded by the cron's maintenance job", async () => {
    const old = await seedSubmission({ fields: { name: "Zoë Cron", email: "cron@example.org", message: "From before." } });
    const [job] = MAINTENANCE_JOBS.filter((j) => j.name === "backfill-submissions");
    expect(await job.run({ db: env.DB, bucket: env.UPLOADS, settings: parseSettings(testEnv()), mailer: null, now: at(Date.now()) })).toBe(
      1,
    );
    expect(await search("ZOË CRON")).toEqual([old]);
  });
});

import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findByEmail, normaliseEmail } from "~/lib/submissions/erase.server";
import { listSubmissionPage, SEARCH_WINDOW, type SubmissionFilter } from "~/lib/storage/submission-list.server";
import { countFieldValues, FIELD_USE_SCAN } from "~/lib/storage/forms.server";
import { appFetch } from "./helpers";
import { adminEnv, adminGet, sessionCookie } from "./admin-helpers";
import { clearScale, meteredDb, SCALE_NOW, SCALE_ROWS, scaleId, seedScale, VIEW_ROWS_BUDGET } from "./scale-helpers";

// Every console view reads its page, not the table (issue 36, docs/decisions/060): on 20,000
// submissions, each view's D1 calls together read at most 2,000 rows as D1 counts them (meta.rows_read),
// for every filter, their combinations, a search and a page further on.

const DAY = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

beforeAll(async () => {
  await clearScale();
  await seedScale();
}, 120_000);
afterAll(clearScale);

async function view(path: string): Promise<{ status: number; html: string; rowsRead: number }> {
  const base = await adminEnv();
  const cookie = await sessionCookie("admin", base);
  // Warm: the form catalog is read once per isolate, not per view.
  await appFetch(adminGet("/admin/forms", cookie), base, { now: () => SCALE_NOW });
  const metered = meteredDb(env.DB);
  const response = await appFetch(adminGet(path, cookie), { ...base, DB: metered.db }, { now: () => SCALE_NOW });
  return { status: response.status, html: await response.text(), rowsRead: metered.rowsRead() };
}

const linkedIds = (html: string) => [...html.matchAll(/href="\/admin\/submissions\/([0-9a-f-]{36})"/g)].map((m) => m[1]);

describe(`console views on ${SCALE_ROWS} submissions`, () => {
  const older = day(SCALE_NOW - 5 * DAY);
  const lists = [
    "/admin/submissions",
    "/admin/submissions?form=contact",
    "/admin/submissions?status=dead",
    "/admin/submissions?status=pending",
    "/admin/submissions?status=quarantined",
    "/admin/submissions?form=apply&status=dead",
    `/admin/submissions?from=${older}&to=${older}`,
    `/admin/submissions?form=newsletter&status=delivered&from=${older}&to=${older}`,
    `/admin/submissions?status=dead&to=${older}`,
    "/admin/submissions?q=hello",
    "/admin/submissions?q=rare",
    "/admin/submissions?q=HELLO&status=dead",
    `/admin/submissions?q=person&form=contact&from=${older}`,
    `/admin/submissions?q=${scaleId(12_345)}`,
    "/admin/submissions?q=nothing-matches-this",
  ];
  it.each(lists)("%s reads at most 2,000 rows", async (path) => {
    const { status, html, rowsRead } = await view(path);
    expect(status).toBe(200);
    expect(rowsRead).toBeGreaterThan(0);
    expect(rowsRead).toBeLessThanOrEqual(VIEW_ROWS_BUDGET);
    // Not empty by accident: every filter but the last finds rows.
    if (!path.includes("nothing")) expect(linkedIds(html).length).toBeGreaterThan(0);
  });

  it("reads the same on the next page as on the first", async () => {
    for (const path of ["/admin/submissions?status=dead", "/admin/submissions?q=hello"]) {
      const first = await view(path);
      const next = [...first.html.matchAll(/<a\b[^>]*>/g)]
        .find((m) => m[0].includes('rel="next"'))?.[0]
        .match(/href="([^"]+)"/)?.[1]
        .replaceAll("&amp;", "&");
      expect(next, path).toBeTruthy();
      const second = await view(next!);
      expect(second.rowsRead).toBeLessThanOrEqual(VIEW_ROWS_BUDGET);
      expect(linkedIds(second.html).length).toBeGreaterThan(0);
      expect(linkedIds(second.html).some((id) => linkedIds(first.html).includes(id))).toBe(false);
    }
  });

  it.each(["/admin", "/admin/audit", "/admin/forms", `/admin/submissions/${scaleId(303)}`])("%s reads at most 2,000 rows", async (path) => {
    const { status, rowsRead } = await view(path);
    expect(status).toBe(200);
    expect(rowsRead).toBeLessThanOrEqual(VIEW_ROWS_BUDGET);
  });

  it("counts the dashboard from the kept counts, and they agree with the rows", async () => {
    const { html } = await view("/admin");
    const [{ n }] = (
      await env.DB.prepare("SELECT COUNT(*) AS n FROM submissions WHERE form_id = 'contact' AND state = 'quarantined'").all<{ n: number }>()
    ).results;
    expect(n).toBeGreaterThan(0);
    const row = html.slice(html.indexOf(">contact<"), html.indexOf("</tr>", html.indexOf(">contact<")));
    expect(row).toContain(`status=quarantined">${n}<`);
  });

  it("finds an address to erase through the index, not a scan", async () => {
    const metered = meteredDb(env.DB);
    const matches = await findByEmail(metered.db, normaliseEmail("PERSON4242@Example.org")!);
    expect(matches.map((m) => m.id)).toEqual([scaleId(4242)]);
    expect(metered.rowsRead()).toBeLessThanOrEqual(VIEW_ROWS_BUDGET);
  });

  it("walks every match of a search once, a window at a time", async () => {
    const filter: SubmissionFilter = { q: "rare" };
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const metered = meteredDb(env.DB);
      const page = await listSubmissionPage(metered.db, filter, cursor);
      expect(metered.rowsRead()).toBeLessThanOrEqual(VIEW_ROWS_BUDGET);
      seen.push(...page.items.map((item) => item.submission.id));
      cursor = page.next;
      pages++;
    } while (cursor && pages < SCALE_ROWS / SEARCH_WINDOW + 5);
    expect(seen).toEqual(Array.from({ length: SCALE_ROWS / 1000 }, (_, k) => scaleId(k * 1000)));
  });

  it("looks for a field a publish would drop in the newest rows only, and says when older ones went unread", async () => {
    const metered = meteredDb(env.DB);
    const uses = await countFieldValues(metered.db, "contact", ["name", "nickname"]);
    // Every seeded row holds a name; none a nickname: both are "perhaps in older ones" on a form this size.
    expect(uses.get("name")).toEqual({ submissions: FIELD_USE_SCAN, read: FIELD_USE_SCAN, more: true });
    expect(uses.get("nickname")).toEqual({ submissions: 0, read: FIELD_USE_SCAN, more: true });
    expect(metered.rowsRead()).toBeLessThanOrEqual(2 * (FIELD_USE_SCAN + 1));
  });
});

import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { exportThrough } from "./export-helpers";
import { appFetch, countRows } from "./helpers";
import { adminEnv, adminGet, adminPost, clearAdminTables, seedSubmission, sessionCookie } from "./admin-helpers";
import { moveSubmissionChunk } from "~/lib/storage/backfill.server";

const DAY = 86_400_000;
const XSS = `<script>alert("x")</script>"><img src=x onerror=alert(1)>`;
let admin = "";

beforeEach(async () => {
  await clearAdminTables();
  admin = await sessionCookie("admin");
});

async function page(path: string, cookie = admin) {
  const response = await appFetch(adminGet(path, cookie), await adminEnv());
  return { status: response.status, html: await response.text(), response };
}

/** The visible text of some HTML, roughly: tags and React's comment markers removed. */
function textOf(html: string) {
  return html
    .replace(/<!-- -->/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ");
}

async function seedMix() {
  const now = Date.now();
  const ids = {
    delivered: await seedSubmission({
      fields: { name: "Delivered Dora", email: "dora@example.org", message: "ok" },
      deliveries: [{ status: "delivered", attempts: [{ httpStatus: 200, excerpt: "thanks" }] }],
    }),
    pending: await seedSubmission({
      fields: { name: "Pending Pat", email: "pat@example.org", message: "wait" },
      deliveries: [{ status: "delivered" }, { status: "pending" }],
    }),
    dead: await seedSubmission({
      fields: { name: "Dead Dan", email: "dan@example.org", message: "gone" },
      deliveries: [
        {
          status: "dead",
          lastError: "http_status",
          attempts: [
            { httpStatus: 500, error: "http_status", latencyMs: 1234, excerpt: "upstream exploded" },
            { httpStatus: null, error: "timeout", latencyMs: 10_000 },
          ],
        },
      ],
    }),
    quarantined: await seedSubmission({
      fields: { name: "Bot Bob", email: "bob@example.org", message: "buy" },
      quarantineReason: "honeypot filled",
    }),
    old: await seedSubmission({
      fields: { name: "Old Olga", email: "olga@example.org", message: "last week" },
      receivedAt: new Date(now - 3 * DAY).toISOString(),
      deliveries: [{ status: "delivered" }],
    }),
  };
  return ids;
}

describe("dashboard", () => {
  it("counts per form today, last 7 days, quarantined and dead, and draws a 14-day SVG chart with a table", async () => {
    await seedMix();
    const { status, html } = await page("/admin");
    expect(status).toBe(200);
    const row = textOf(html.slice(html.indexOf(">contact<") - 200, html.indexOf("</tr>", html.indexOf(">contact<"))));
    // today 4 (the old one is 3 days back), 7 days 5, quarantined 1, dead 1
    expect(row).toMatch(/contact 4 5 1 1/);
    expect(html).toContain("<svg");
    expect(html).toContain('aria-hidden="true"');
    expect(textOf(html)).toContain("Submissions per day, last 14 days (UTC), by outcome: 5 in total.");
    expect(html.match(/<th scope="row">\d{4}-\d{2}-\d{2}<\/th>/g)).toHaveLength(14);
    expect(html).toContain("Redeliver 1 dead");
  });

  it("leaves console tests out of every count and the chart", async () => {
    await seedMix();
    await seedSubmission({ fields: { name: "Sample" }, test: true, deliveries: [{ status: "delivered" }] });
    await seedSubmission({ fields: { name: "Sample" }, test: true, deliveries: [{ status: "dead" }] });
    await seedSubmission({ fields: { name: "Sample" }, test: true, receivedAt: new Date(Date.now() - 3 * DAY).toISOString() });
    const { html } = await page("/admin");
    const row = textOf(html.slice(html.indexOf(">contact<") - 200, html.indexOf("</tr>", html.indexOf(">contact<"))));
    expect(row).toMatch(/contact 4 5 1 1/);
    expect(textOf(html)).toContain("by outcome: 5 in total.");
    expect(html).toContain("Redeliver 1 dead");
  });

  it("hides action buttons from a viewer", async () => {
    await seedMix();
    const { html } = await page("/admin", await sessionCookie("viewer"));
    expect(html).not.toContain("Redeliver 1 dead");
  });
});

/** The ids a list page links to, in order. */
const linkedIds = (html: string) => [...html.matchAll(/href="\/admin\/submissions\/([0-9a-f-]{36})"/g)].map((m) => m[1]);
/** The href of the pager's link with this rel, decoded. */
function pagerHref(html: string, rel: "next" | "prev"): string | null {
  for (const m of html.matchAll(/<a\b[^>]*>/g)) {
    if (!m[0].includes(`rel="${rel}"`)) continue;
    const href = /href="([^"]+)"/.exec(m[0])?.[1];
    if (href) return href.replaceAll("&amp;", "&");
  }
  return null;
}

// Each case twice: on rows stored before migration 0021 (read the old way), and once the backfill moved them.
describe.each([
  ["not yet moved", false],
  ["moved by the backfill", true],
])("submission list, rows %s", (_name, moved) => {
  const settle = async () => {
    if (moved) while ((await moveSubmissionChunk(env.DB, 100)) > 0);
  };

  it("filters by each status, by form, by date and by text, and pages by cursor with rel links", async () => {
    const ids = await seedMix();
    await settle();
    for (const state of ["delivered", "pending", "dead", "quarantined"] as const) {
      const { html } = await page(`/admin/submissions?status=${state}`);
      const expected = state === "delivered" ? [ids.delivered, ids.old] : [ids[state]];
      expect(linkedIds(html).sort(), state).toEqual(expected.sort());
    }
    expect(textOf((await page("/admin/submissions?q=olga")).html)).toContain("Old Olga");
    expect(textOf((await page("/admin/submissions?q=olga")).html)).not.toContain("Dead Dan");
    expect(linkedIds((await page("/admin/submissions?q=%25")).html)).toEqual([]);
    expect(textOf((await page("/admin/submissions?q=%25")).html)).toContain("No submission matches these filters");
    const today = new Date().toISOString().slice(0, 10);
    expect(linkedIds((await page(`/admin/submissions?from=${today}&to=${today}`)).html)).toHaveLength(4);
    expect(linkedIds((await page("/admin/submissions?form=newsletter")).html)).toEqual([]);
    expect(linkedIds((await page("/admin/submissions?form=contact&status=dead")).html)).toEqual([ids.dead]);

    const bulk: string[] = [];
    for (let i = 0; i < 26; i++)
      bulk.push(
        await seedSubmission({ fields: { name: `Bulk ${i}` }, receivedAt: new Date(Date.now() - 10 * DAY - i * 1000).toISOString() }),
      );
    await settle();
    const first = await page("/admin/submissions");
    const firstIds = linkedIds(first.html);
    expect(firstIds).toHaveLength(25);
    expect(pagerHref(first.html, "prev")).toBeNull();
    const nextHref = pagerHref(first.html, "next");
    expect(nextHref).toMatch(/^\/admin\/submissions\?cursor=/);
    const second = await page(nextHref!);
    const secondIds = linkedIds(second.html);
    expect(secondIds).toHaveLength(6);
    // Newest first, each once: the five of today, then the bulk rows oldest last.
    expect([...firstIds, ...secondIds].slice(5)).toEqual(bulk);
    expect(new Set([...firstIds, ...secondIds]).size).toBe(31);
    expect(pagerHref(second.html, "next")).toBeNull();
    const back = await page(pagerHref(second.html, "prev")!);
    expect(linkedIds(back.html)).toEqual(firstIds);
  });

  it("lists console tests with the rest, each marked as a test", async () => {
    await seedMix();
    const test = await seedSubmission({ fields: { name: "Sample Sam" }, test: true, deliveries: [{ status: "delivered" }] });
    const { html } = await page("/admin/submissions");
    expect(textOf(html)).toContain("6 submissions on this page.");
    const rows = html.split("<tr").filter((row) => row.includes("/admin/submissions/"));
    const marked = rows.filter((row) => />Test</.test(row));
    expect(marked).toHaveLength(1);
    expect(marked[0]).toContain(test);
  });
});

describe("an empty value", () => {
  it("reads as the one mark in the list and on the detail page, never null or a blank", async () => {
    // An optional choice left unanswered is stored as null; an optional text left empty as "".
    const id = await seedSubmission({ fields: { name: "Nora Empty", email: "nora@example.org", message: "", topic: null } });
    const ticked = await seedSubmission({ formId: "newsletter", fields: { email: "no@example.org", consent: false } });
    const main = (html: string) => textOf(html.slice(html.indexOf("<main"), html.indexOf("</main>")));
    const list = main((await page("/admin/submissions")).html);
    expect(list).toContain("Nora Empty · nora@example.org · — · —");
    expect(list).not.toMatch(/\bnull\b/);
    expect(list).toContain("no@example.org · No");
    const detail = main((await page(`/admin/submissions/${id}`)).html);
    expect(detail).toMatch(/Message — .*topic — /);
    expect(detail).not.toMatch(/\bnull\b/);
    expect(main((await page(`/admin/submissions/${ticked}`)).html)).toMatch(/ No /);
  });
});

describe("submission detail", () => {
  it("shows fields, the verification verdict and every attempt in the delivery timeline", async () => {
    const { dead } = await seedMix();
    const { status, html } = await page(`/admin/submissions/${dead}`);
    expect(status).toBe(200);
    const text = textOf(html);
    expect(text).toContain("Dead Dan");
    expect(text).toContain("forms.example.org");
    expect(text).toMatch(/Challenge solved \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
    expect(text).toContain("1234 ms");
    expect(text).toContain("upstream exploded");
    expect(text).toContain("no response");
    expect(text).toContain("timeout");
    expect(text).toContain("2 attempts logged");
  });

  it("shows a receiver's reply excerpt to admins only: a viewer's page and its data never carry it", async () => {
    const { dead } = await seedMix();
    const viewer = await sessionCookie("viewer");
    const { status, html } = await page(`/admin/submissions/${dead}`, viewer);
    expect(status).toBe(200);
    expect(html).not.toContain("upstream exploded");
    expect(html).not.toContain("Response excerpt");
    expect(textOf(html)).toContain("1234 ms");
    const data = await page(`/admin/submissions/${dead}?_data=${encodeURIComponent("routes/admin.submissions.$id")}`, viewer);
    expect(data.status).toBe(200);
    expect(data.html).toContain("1234");
    expect(data.html).not.toContain("upstream exploded");
    expect((await page(`/admin/submissions/${dead}`)).html).toContain("upstream exploded");
  });

  it("answers 404 for an unknown id", async () => {
    expect((await page("/admin/submissions/nope")).status).toBe(404);
  });
});

describe("stored XSS", () => {
  it("renders payloads in every field, reason, error and excerpt inert in the list, detail and export", async () => {
    const id = await seedSubmission({
      fields: { name: XSS, email: XSS, message: XSS },
      quarantineReason: XSS,
      deliveries: [{ status: "dead", lastError: XSS, attempts: [{ httpStatus: 500, error: XSS, excerpt: XSS }] }],
    });
    for (const path of ["/admin/submissions", `/admin/submissions/${id}`, `/admin/submissions?q=${encodeURIComponent("<script>")}`]) {
      const { html } = await page(path);
      expect(html, path).not.toContain("<script>alert");
      expect(html, path).not.toContain("<img src=x");
      expect(html, path).toContain("&lt;script&gt;alert");
    }
    for (const format of ["csv", "json"]) {
      const response = await exportThrough(`/admin/export?form=contact&format=${format}`, admin, await adminEnv());
      const html = await response.text();
      expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="gatepost-contact-/);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("content-type")).not.toContain("html");
      expect(html).toContain(format === "csv" ? '<script>alert(""x"")</script>' : '<script>alert(\\"x\\")</script>');
    }
  });
});

describe("export", () => {
  it("writes CSV with a BOM, stable columns and neutralised formulas, and the same data as JSON, audited", async () => {
    await seedSubmission({
      fields: { name: '=HYPERLINK("http://evil")', email: "+1@example.org", message: '-2+3\nline two, "quoted"' },
      receivedAt: "2026-01-02T10:00:00.000Z",
    });
    await seedSubmission({
      fields: { name: "@SUM(A1)", email: "\tx@example.org", message: "plain" },
      receivedAt: "2026-01-03T10:00:00.000Z",
    });
    await seedSubmission({
      fields: { name: "out of range", email: "x@example.org", message: "m" },
      receivedAt: "2026-02-01T10:00:00.000Z",
    });
    const appEnv = await adminEnv();
    const exported = (path: string) => exportThrough(path, admin, appEnv);
    const csvResponse = await exported("/admin/export?form=contact&from=2026-01-01&to=2026-01-31&format=csv");
    expect(csvResponse.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const csv = { html: await csvResponse.text() };
    const bytes = new Uint8Array(await (await exported("/admin/export?form=contact&from=2026-01-01&to=2026-01-31")).arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = csv.html.replace(/^\uFEFF/, "").split("\r\n");
    expect(lines[0]).toBe(
      "id,form_id,received_at,state,test,quarantine_reason,verify_hostname,verify_action,verify_challenge_ts,field:name,field:email,field:message",
    );
    expect(lines[1]).toContain(`"'=HYPERLINK(""http://evil"")",'+1@example.org,"'-2+3\nline two, ""quoted"""`);
    // A tab is a separator in some locales, so its cell is quoted.
    expect(csv.html).toContain("'@SUM(A1),\"'\tx@example.org\",plain");
    expect(csv.html).not.toContain("out of range");
    const json = await exported("/admin/export?form=contact&from=2026-01-01&to=2026-01-31&format=json");
    const rows = JSON.parse(await json.text()) as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(2);
    expect(Object.keys(rows[0])).toEqual(lines[0].split(","));
    expect(rows[0]["field:name"]).toBe('=HYPERLINK("http://evil")');
    const audit = await env.DB.prepare("SELECT action, target, detail FROM audit_log ORDER BY id").all();
    expect(audit.results.filter((r) => r.action === "export")).toHaveLength(3);
  });

  it("refuses an unknown form with 404", async () => {
    expect((await page("/admin/export?form=nope")).status).toBe(404);
  });

  it("writes valid UTF-8 and neutralises formulas after ; and tab too", async () => {
    await seedSubmission({ fields: { name: 'Ann;=HYPERLINK("http://evil")', email: "a@example.org", message: "x\t@SUM(1)\ud800" } });
    const response = await exportThrough("/admin/export?form=contact", admin, await adminEnv());
    const text = new TextDecoder("utf-8", { fatal: true }).decode(await response.arrayBuffer());
    expect(text).toContain(`"Ann;'=HYPERLINK(""http://evil"")"`);
    expect(text).toContain(`"x\t'@SUM(1)\uFFFD"`);
  });

  it("runs only for the console's own pages: a cross-site link, image or typed URL is refused, unaudited", async () => {
    await seedSubmission({ fields: { name: "Ada", email: "ada@example.org", message: "hi" } });
    const appEnv = await adminEnv();
    for (const site of ["cross-site", "same-site", "none", null]) {
      const request = adminGet("/admin/export?form=contact", admin);
      if (site) request.headers.set("Sec-Fetch-Site", site);
      else request.headers.delete("Sec-Fetch-Site");
      const response = await appFetch(request, appEnv);
      expect(response.status, String(site)).toBe(403);
      expect(await response.text()).not.toContain("ada@example.org");
    }
    expect(await countRows("audit_log")).toBe(0);
    const allowed = await exportThrough("/admin/export?form=contact", admin, appEnv);
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain("ada@example.org");
    expect(await countRows("audit_log")).toBe(1);
  });

  it.each([
    ["from=2026-02-31", 400],
    ["to=2026-13-01", 400],
    ["from=2026-1-1", 400],
    ["format=xlsx", 400],
    ["from=2024-02-29&to=9999-12-31", 202],
    // What the export form sends when its dates are left empty.
    ["from=&to=&format=csv", 202],
  ])("answers an export with %s with %i, never 500", async (query, status) => {
    expect((await page(`/admin/export?form=contact&${query}`)).status).toBe(status);
  });
});

describe("delete", () => {
  it("removes the submission with its deliveries and attempts, and audits who did it", async () => {
    const { dead, delivered } = await seedMix();
    const response = await appFetch(adminPost(`/admin/submissions/${dead}`, { intent: "delete" }, { Cookie: admin }), await adminEnv());
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/admin/submissions?deleted=1");
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM submissions WHERE id = ?1").bind(dead).first("n")).toBe(0);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM deliveries WHERE submission_id = ?1").bind(dead).first("n")).toBe(0);
    expect(
      await env.DB.prepare("SELECT COUNT(*) AS n FROM delivery_attempts WHERE delivery_id LIKE ?1")
        .bind(`msg_${dead.slice(0, 8)}%`)
        .first("n"),
    ).toBe(0);
    // Everything else is untouched.
    expect(
      await env.DB.prepare("SELECT COUNT(*) AS n FROM delivery_attempts WHERE delivery_id LIKE ?1")
        .bind(`msg_${delivered.slice(0, 8)}%`)
        .first("n"),
    ).toBe(1);
    expect(await countRows("submissions")).toBe(4);
    const audit = await env.DB.prepare("SELECT * FROM audit_log").first<Record<string, string>>();
    expect(audit).toMatchObject({ actor: "password:admin", role: "admin", action: "submission.delete", target: dead, ip: "198.51.100.4" });
    expect(audit?.at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });
});

describe("erase by e-mail", () => {
  it("shows what matches, erases only on confirmation, only exact matches, and never logs the address", async () => {
    await seedMix();
    const keep = await seedSubmission({
      fields: { name: "Near miss", email: "grace.dora@example.org", message: "mentions dora@example.org inside" },
    });
    const other = await seedSubmission({
      formId: "newsletter",
      fields: { email: " DORA@example.org " },
      deliveries: [{ status: "pending", attempts: [{ httpStatus: 503 }] }],
    });
    const appEnv = await adminEnv();
    const preview = await appFetch(adminPost("/admin/erase", { intent: "find", email: "Dora@Example.org" }, { Cookie: admin }), appEnv);
    const previewText = textOf(await preview.text());
    expect(previewText).toContain("2 submissions found");
    expect(previewText).toContain(other);
    expect(await countRows("submissions")).toBe(7);

    const erase = await appFetch(
      adminPost("/admin/erase", { intent: "erase", email: "dora@example.org", confirm: "yes" }, { Cookie: admin }),
      appEnv,
    );
    expect(textOf(await erase.text())).toContain("Erased 2 submissions");
    expect(await countRows("submissions")).toBe(5);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM submissions WHERE id = ?1").bind(keep).first("n")).toBe(1);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM deliveries WHERE submission_id = ?1").bind(other).first("n")).toBe(0);
    expect(await countRows("delivery_attempts")).toBe(2);
    const audit = await env.DB.prepare("SELECT action, detail FROM audit_log ORDER BY id").all<{ action: string; detail: string }>();
    expect(audit.results.map((r) => r.action)).toEqual(["erase.preview", "erase"]);
    expect(JSON.parse(audit.results[1].detail)).toMatchObject({ matched: 2 });
    expect(JSON.stringify(audit.results).toLowerCase()).not.toContain("dora");
  });

  it("finds and erases what a person would call the same address, with Unicode case folding", async () => {
    const accented = await seedSubmission({ fields: { name: "É", email: "Élodie.Straße@Example.org", message: "m" } });
    const upper = await seedSubmission({ formId: "newsletter", fields: { email: "ÉLODIE.STRASSE@EXAMPLE.ORG" } });
    const other = await seedSubmission({ fields: { name: "E", email: "elodie.strasse@example.org", message: "m" } });
    const appEnv = await adminEnv();
    const preview = textOf(
      await (
        await appFetch(adminPost("/admin/erase", { intent: "find", email: "élodie.strasse@example.ORG" }, { Cookie: admin }), appEnv)
      ).text(),
    );
    expect(preview).toContain("2 submissions found");
    expect(preview).toContain(accented);
    expect(preview).toContain(upper);
    expect(preview).not.toContain(other);
    const erase = await appFetch(
      adminPost("/admin/erase", { intent: "erase", email: "ÉLODIE.STRAßE@example.org", confirm: "yes" }, { Cookie: admin }),
      appEnv,
    );
    expect(textOf(await erase.text())).toContain("Erased 2 submissions");
    expect(await countRows("submissions")).toBe(1);
  });

  it("tags the audit row with an HMAC under a server secret, not a hash anyone can recompute", async () => {
    const tagUnder = async (secret: string) => {
      await clearAdminTables();
      const appEnv = await adminEnv({ SESSION_SECRET: secret });
      const cookie = await sessionCookie("admin", appEnv);
      await appFetch(adminPost("/admin/erase", { intent: "find", email: "dora@example.org" }, { Cookie: cookie }), appEnv);
      const row = await env.DB.prepare("SELECT detail FROM audit_log WHERE action = 'erase.preview'").first<{ detail: string }>();
      return JSON.parse(row?.detail ?? "{}").emailTag as string;
    };
    const first = await tagUnder("first-secret-0123456789abcdef0123456789abcdef");
    const second = await tagUnder("second-secret-0123456789abcdef0123456789abcdef");
    expect(first).toMatch(/^[\w-]{16,}$/);
    expect(second).not.toBe(first);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode("gatepost-erase:dora@example.org")));
    const unkeyed = [...digest.slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("");
    expect([first, second]).not.toContain(unkeyed);
  });

  it("says how many went in words that agree with the count", async () => {
    await seedSubmission({ fields: { name: "Only", email: "only@example.org", message: "m" }, deliveries: [{ status: "delivered" }] });
    const erase = await appFetch(
      adminPost("/admin/erase", { intent: "erase", email: "only@example.org", confirm: "yes" }, { Cookie: admin }),
      await adminEnv(),
    );
    expect(textOf(await erase.text())).toContain("Erased 1 submission and its delivery log.");
    const audit = textOf(await (await appFetch(adminGet("/admin/audit", admin), await adminEnv())).text());
    expect(audit).toContain("Erased 1 submission holding one e-mail address, with its delivery log.");
  });

  it("does nothing without the confirmation", async () => {
    await seedMix();
    await appFetch(adminPost("/admin/erase", { intent: "erase", email: "dora@example.org" }, { Cookie: admin }), await adminEnv());
    expect(await countRows("submissions")).toBe(5);
  });
});

import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { adminEnv, adminGet, adminPost, clearAdminTables, sessionCookie } from "./admin-helpers";
import { apiPost, appFetch, clearTables, standin, standinToken } from "./helpers";
import { consoleAdminEnv, putAndPublish, resetConsoleForms, sampleDefinition } from "./console-helpers";
import { ERRORS } from "~/lib/http/errors";

// A form embedded on another site: the sites are set on the form's Embed page in the console (kept in
// D1, the environment's values winning), and only they may frame its page (frame-ancestors), post to
// its API (CORS) and bring tokens solved on their hostnames; /embed.js frames the form's page.

const SITE = "https://site.example";
const EMBED_DATA = `?_data=${encodeURIComponent("routes/admin.forms.$formId_.embed")}`;

async function saveSites(e: Env, formId: string, origins: string, hostnames: string) {
  const cookie = await sessionCookie("admin", e);
  return appFetch(adminPost(`/admin/forms/${formId}/embed${EMBED_DATA}`, { origins, hostnames }, { Cookie: cookie }), e);
}

function preflight(e: Env, origin: string) {
  return appFetch(
    new Request("http://localhost/api/forms/newsletter/submissions", {
      method: "OPTIONS",
      headers: { Origin: origin, "Access-Control-Request-Method": "POST" },
    }),
    e,
  );
}

function frameAncestors(res: Response): string {
  return /frame-ancestors ([^;]+)/.exec(res.headers.get("content-security-policy") ?? "")?.[1] ?? "";
}

beforeEach(async () => {
  await standin.reset();
  await clearTables();
  await clearAdminTables();
  await env.DB.exec("DELETE FROM form_embed_sites");
});

describe("the sites allowed to embed a form", () => {
  it("are set in the console, audited, and then alone may frame its page and post to it", async () => {
    // Local development lets a loopback site use plain http; anything else must be https.
    const e = await adminEnv({ ALLOW_LOOPBACK_WEBHOOKS: "true" });
    expect(frameAncestors(await appFetch(new Request("http://localhost/f/newsletter?embed=1"), e))).toBe("'none'");
    expect((await preflight(e, SITE)).status).toBe(403);

    const saved = await saveSites(e, "newsletter", `${SITE}\nhttp://127.0.0.1:8080`, "site.example");
    expect(saved.status).toBe(200);
    expect(await saved.json()).toMatchObject({ ok: true });
    const audit = await env.DB.prepare("SELECT action, target, detail FROM audit_log WHERE action = 'form.embed'").first();
    expect(audit).toMatchObject({ target: "newsletter" });

    const framed = await appFetch(new Request(`http://localhost/f/newsletter?embed=1&parent=${encodeURIComponent(SITE)}`), e);
    expect(frameAncestors(framed)).toBe(`${SITE} http://127.0.0.1:8080`);
    expect(framed.headers.has("gatepost-frame-ancestors")).toBe(false);
    const html = await framed.text();
    expect(html).toContain('<body class="embed">');
    expect(html).not.toContain('<header class="site">');
    expect(html).toContain(`"embedParent":"${SITE}"`);
    // The same page unframed, and a parent not on the list, get nothing.
    expect(frameAncestors(await appFetch(new Request("http://localhost/f/newsletter"), e))).toBe("'none'");
    expect(await (await appFetch(new Request("http://localhost/f/newsletter?embed=1&parent=https://evil.example"), e)).text()).toContain(
      '"embedParent":null',
    );

    expect((await preflight(e, SITE)).status).toBe(204);
    expect((await preflight(e, "https://evil.example")).status).toBe(403);
  });

  it("let tokens solved on a listed hostname through, and no others", async () => {
    const e = await adminEnv();
    await saveSites(e, "newsletter", SITE, "site.example");
    const post = (hostname: string) =>
      appFetch(
        apiPost(
          "newsletter",
          { email: "lin@example.org", consent: "on", "cf-turnstile-response": standinToken({ action: "newsletter", hostname }) },
          { headers: { Origin: SITE } },
        ),
        e,
      );
    expect((await post("site.example")).status).toBe(201);
    const other = await post("elsewhere.example");
    expect(other.status).toBe(400);
    expect(other.headers.get("gatepost-error-code")).toBe("turnstile_hostname_mismatch");
  });

  it("lose to the environment's: FORM_ALLOWED_ORIGINS and TURNSTILE_ALLOWED_HOSTNAMES win and show read-only", async () => {
    const e = await adminEnv({ FORM_ALLOWED_ORIGINS: "newsletter=https://env.example", TURNSTILE_ALLOWED_HOSTNAMES: "env.example" });
    await saveSites(e, "newsletter", SITE, "site.example");
    expect((await preflight(e, SITE)).status).toBe(403);
    expect((await preflight(e, "https://env.example")).status).toBe(204);
    const page = await (await appFetch(adminGet("/admin/forms/newsletter/embed", await sessionCookie("admin", e)), e)).text();
    expect(page).toContain("Set by the environment (FORM_ALLOWED_ORIGINS), which wins: https://env.example.");
    expect(page).toContain("Set by the environment (TURNSTILE_ALLOWED_HOSTNAMES), which wins: env.example.");
    // Nothing typed for a kind the environment sets is kept.
    const row = await env.DB.prepare("SELECT origins, hostnames FROM form_embed_sites WHERE form_id = 'newsletter'").first();
    expect(row).toBeNull();
  });

  it("refuses what is not an origin or a hostname, keeping nothing", async () => {
    const e = await adminEnv();
    const res = await saveSites(e, "newsletter", "https://site.example/path\nhttp://plain.example", "not a host!");
    expect(res.status).toBe(422);
    const body = (await res.json()) as { problems: string[] };
    expect(body.problems).toHaveLength(3);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM form_embed_sites").first("n")).toBe(0);
  });

  it("are exact origins, parsed: one that would add to a header is refused with its catalogue code", async () => {
    const e = await adminEnv();
    const res = await saveSites(e, "newsletter", "https://x;report-uri https://collector.example", "");
    expect(res.status).toBe(422);
    expect(res.headers.get("gatepost-error-code")).toBe("embed_sites_invalid");
    const body = (await res.json()) as { message: string; problems: string[] };
    expect(body.message).toBe(ERRORS.embed_sites_invalid.message);
    expect(body.problems).toEqual([expect.stringMatching(/^“https:\/\/x;report-uri” is not an origin/)]);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM form_embed_sites").first("n")).toBe(0);
    for (const bad of [
      "https://a,b.example",
      "https://a'b.example",
      "https://a_b.example",
      "HTTPS://SITE.EXAMPLE",
      "https://site.example:443",
    ]) {
      expect((await saveSites(e, "newsletter", bad, "")).status, bad).toBe(422);
    }
  });

  it("stored before they were parsed, never reach a header unless exact", async () => {
    const e = await adminEnv();
    const hostile = "https://x;report-uri https://collector.example";
    await env.DB.prepare("INSERT INTO form_embed_sites (form_id, origins, hostnames, updated_at) VALUES ('newsletter', ?, '[]', 0)")
      .bind(JSON.stringify([hostile, "https://x;report-uri", SITE]))
      .run();
    // A console save (of another form) drops the app's form catalog, so it reads the row above.
    expect((await saveSites(e, "contact", "", "")).status).toBe(200);
    const framed = await appFetch(new Request(`http://localhost/f/newsletter?embed=1&parent=${encodeURIComponent(SITE)}`), e);
    const csp = framed.headers.get("content-security-policy") ?? "";
    expect(frameAncestors(framed)).toBe(SITE);
    expect(csp).not.toContain("report-uri");
    expect(csp).not.toContain("collector");
    // The API's CORS answers only an exact origin, echoed from its parts.
    for (const origin of [hostile, "https://x;report-uri"]) {
      const refused = await preflight(e, origin);
      expect(refused.status).toBe(403);
      expect(refused.headers.has("access-control-allow-origin")).toBe(false);
    }
    expect((await preflight(e, SITE)).headers.get("access-control-allow-origin")).toBe(SITE);
  });

  it("are only changed by an admin", async () => {
    const e = await adminEnv();
    const cookie = await sessionCookie("viewer", e);
    const res = await appFetch(
      adminPost(`/admin/forms/newsletter/embed${EMBED_DATA}`, { origins: SITE, hostnames: "" }, { Cookie: cookie }),
      e,
    );
    expect(res.status).toBe(403);
  });
});

describe("the embeds handed out", () => {
  it("give the form as HTML for a static site and a one-line script tag", async () => {
    const e = await adminEnv();
    const page = await (await appFetch(adminGet("/admin/forms/contact/embed", await sessionCookie("admin", e)), e)).text();
    expect(page).toContain("&lt;script src=&quot;http://localhost/embed.js&quot; data-form=&quot;contact&quot;");
    expect(page).toContain("action=&quot;http://localhost/api/forms/contact/submissions?lang=en&quot;");
    expect(page).toContain("data-sitekey=&quot;1x00000000000000000000AA&quot; data-action=&quot;contact&quot;");
    expect(page).toContain("name=&quot;_gotcha&quot;");
  });

  it("serve /embed.js, which frames /f/:id?embed=1 and listens to Gatepost's origin only", async () => {
    const res = await appFetch(new Request("http://localhost/embed.js"), await adminEnv());
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const script = await res.text();
    expect(script).toContain('var GATEPOST = "http://localhost";');
    expect(script).toContain('src.searchParams.set("embed", "1")');
    expect(script).toContain("event.origin !== GATEPOST || event.source !== frame.contentWindow");
  });
});

describe("one place that sets a form's allowed origins", () => {
  it("is the Embed page: the console's editor has no origins input and links there", async () => {
    await resetConsoleForms();
    await putAndPublish("feedback", sampleDefinition({ allowedOrigins: ["https://api.example"] }));
    const e = await consoleAdminEnv();
    expect((await saveSites(e, "feedback", SITE, "")).status).toBe(200);
    const editor = await (await appFetch(adminGet("/admin/forms/feedback", await sessionCookie("admin", e)), e)).text();
    expect(editor).not.toMatch(/<(textarea|input)(?![^>]*type="hidden")[^>]*name="allowedOrigins"/);
    expect(editor).toMatch(/set on its <a[^>]* href="\/admin\/forms\/feedback\/embed"[^>]*>Embed page<\/a>/);
    // A definition's own list (set through the admin API) rides through the editor's saves unchanged.
    expect(editor).toContain('<input type="hidden" name="allowedOrigins" value="https://api.example"/>');
    const embed = await (await appFetch(adminGet("/admin/forms/feedback/embed", await sessionCookie("admin", e)), e)).text();
    expect(embed).toContain(`>${SITE}</textarea>`);
    expect(embed).toContain("The form&#x27;s definition allows https://api.example too.");
  });
});

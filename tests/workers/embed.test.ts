import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { adminEnv, adminGet, adminPost, clearAdminTables, sessionCookie } from "./admin-helpers";
import { apiPost, appFetch, clearTables, standin, standinToken } from "./helpers";

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

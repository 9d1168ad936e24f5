import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { drainOutbox } from "~/lib/delivery/drain.server";
import { insertHookStatement, MAX_HOOKS_PER_FORM, newHookId } from "~/lib/hooks/subscriptions.server";
import { parseSettings } from "~/lib/settings/settings.server";
import { adminGet, adminPost, clearAdminTables, sessionCookie } from "./admin-helpers";
import { api, consoleAdminEnv, consoleEnv, makeApiToken } from "./console-helpers";
import { appFetch, formPost, sink, standinToken, standin } from "./helpers";

// Subscriptions by API (REST hooks, issue 53 point 3, ADR 123): admin tokens only, the webhook URL rules,
// the cap of 50 a form, each accepted submission sent through the outbox with the subscription's own
// secret, a 410 ending it (audited), and the sample in exactly the delivered shape.

const VALID = { name: "Ada Lovelace", email: "ada@example.org", message: "Hello from the analytical engine." };
/** The console env with loopback webhooks allowed (the sink is on this computer); no webhook destination. */
const hookEnv = (overrides: Record<string, string> = {}) => consoleEnv({ ALLOW_LOOPBACK_WEBHOOKS: "true", ...overrides });

interface Hook {
  id: string;
  formId: string;
  event: string;
  url: string;
  createdAt: string;
  createdBy: string;
  secret?: string;
}

beforeEach(async () => {
  await standin.reset();
  await sink.reset();
  await clearAdminTables();
  await env.DB.exec("DELETE FROM admin_api_tokens; DELETE FROM hook_subscriptions; DELETE FROM destination_health");
});

async function subscribe(url = sink.url(), formId = "contact", appEnv = hookEnv()): Promise<Hook> {
  const made = await api("POST", "/admin/api/hooks", { body: { url, formId, event: "submission.accepted" }, appEnv });
  expect(made.status, await made.clone().text()).toBe(201);
  return (await made.json()) as Hook;
}

async function accept(appEnv = hookEnv()): Promise<string> {
  const res = await appFetch(formPost("/f/contact", { ...VALID, "cf-turnstile-response": standinToken() }), appEnv);
  expect(res.status).toBe(303);
  return (res.headers.get("location") ?? "").split("/").pop()!;
}

async function deliveriesOf(submissionId: string) {
  const { results } = await env.DB.prepare("SELECT id, destination, status, last_error FROM deliveries WHERE submission_id = ?")
    .bind(submissionId)
    .all<{ id: string; destination: string; status: string; last_error: string | null }>();
  return results;
}

async function audit() {
  const { results } = await env.DB.prepare("SELECT action, target, actor, detail FROM audit_log ORDER BY id").all<Record<string, string>>();
  return results;
}

describe("the hooks API's auth", () => {
  it("refuses strangers (401) and viewer tokens (403) on every call; an admin token subscribes and sees its secret once", async () => {
    const body = { url: "https://hooks.example.com/catch/1", formId: "contact", event: "submission.accepted" };
    for (const [method, path] of [
      ["GET", "/admin/api/hooks"],
      ["POST", "/admin/api/hooks"],
      ["DELETE", `/admin/api/hooks/${newHookId()}`],
    ] as const) {
      const stranger = await api(method, path, { token: null, body: method === "POST" ? body : undefined });
      expect(stranger.status, `${method} ${path}`).toBe(401);
      expect(stranger.headers.get("Gatepost-Error-Code")).toBe("admin_unauthenticated");
    }
    const viewer = await makeApiToken("viewer");
    for (const [method, path] of [
      ["GET", "/admin/api/hooks"],
      ["POST", "/admin/api/hooks"],
      ["DELETE", `/admin/api/hooks/${newHookId()}`],
    ] as const) {
      const refused = await api(method, path, { token: viewer, body: method === "POST" ? body : undefined });
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.headers.get("Gatepost-Error-Code")).toBe("admin_forbidden");
    }
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM hook_subscriptions").first("n")).toBe(0);

    const admin = await makeApiToken("admin");
    const made = await api("POST", "/admin/api/hooks", { token: admin, body });
    expect(made.status).toBe(201);
    const hook = (await made.json()) as Hook;
    expect(hook).toMatchObject({ formId: "contact", event: "submission.accepted", url: body.url });
    expect(hook.id).toMatch(/^hook_[0-9a-f]{32}$/);
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(made.headers.get("Location")).toBe(`/admin/api/hooks/${hook.id}`);
    // Kept sealed, never in the clear, and never listed again.
    const stored = await env.DB.prepare("SELECT secret FROM hook_subscriptions WHERE id = ?").bind(hook.id).first<string>("secret");
    expect(stored).not.toContain(hook.secret!.slice(6));
    const listed = (await (await api("GET", "/admin/api/hooks?formId=contact", { token: admin })).json()) as { hooks: Hook[] };
    expect(listed.hooks).toEqual([
      { id: hook.id, formId: "contact", event: "submission.accepted", url: body.url, createdAt: hook.createdAt, createdBy: hook.createdBy },
    ]);

    const gone = await api("DELETE", `/admin/api/hooks/${hook.id}`, { token: admin });
    expect(gone.status).toBe(204);
    const again = await api("DELETE", `/admin/api/hooks/${hook.id}`, { token: admin });
    expect(again.status).toBe(404);
    expect(again.headers.get("Gatepost-Error-Code")).toBe("hook_not_found");
    expect(((await (await api("GET", "/admin/api/hooks", { token: admin })).json()) as { hooks: Hook[] }).hooks).toEqual([]);
    expect((await audit()).map((row) => [row.action, row.target])).toEqual([
      ["token.create", expect.any(String)],
      ["token.create", expect.any(String)],
      ["hook.create", hook.id],
      ["hook.delete", hook.id],
    ]);
  });

  it("holds URLs to the webhook rules, and refuses an unknown form or event with the catalogue's codes", async () => {
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ url: "http://hooks.example.com/x", formId: "contact", event: "submission.accepted" }, 422, "hook_invalid"],
      [{ url: "https://10.0.0.7/x", formId: "contact", event: "submission.accepted" }, 422, "hook_invalid"],
      [{ url: "https://user:pw@hooks.example.com/x", formId: "contact", event: "submission.accepted" }, 422, "hook_invalid"],
      [{ url: "https://hooks.example.com/x", formId: "contact", event: "submission.deleted" }, 422, "hook_invalid"],
      [{ url: "https://hooks.example.com/x", formId: "contact" }, 422, "hook_invalid"],
      [{ url: "https://hooks.example.com/x", formId: "nope", event: "submission.accepted" }, 404, "form_not_found"],
    ];
    for (const [body, status, code] of cases) {
      const refused = await api("POST", "/admin/api/hooks", { body });
      expect(refused.status, JSON.stringify(body)).toBe(status);
      expect(refused.headers.get("Gatepost-Error-Code")).toBe(code);
    }
    // Loopback only with the local-development switch.
    const local = await api("POST", "/admin/api/hooks", { body: { url: sink.url(), formId: "contact", event: "submission.accepted" } });
    expect(local.status).toBe(422);
    expect(((await local.json()) as { problems: string[] }).problems[0]).toMatch(/^url: the URL must not reach inside/);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM hook_subscriptions").first("n")).toBe(0);
  });
});

describe("the cap", () => {
  it("takes 50 live subscriptions a form, answers the 51st with a clear 409, and makes room when one is deleted", async () => {
    const nowMs = Date.now();
    await env.DB.batch(
      Array.from({ length: MAX_HOOKS_PER_FORM - 1 }, (_, i) =>
        insertHookStatement(env.DB, {
          id: newHookId(),
          formId: "contact",
          event: "submission.accepted",
          url: `https://hooks.example.com/${i}`,
          sealedSecret: "v1.x.y.z",
          actor: "token:seed",
          nowMs: nowMs + i,
        }),
      ),
    );
    const fiftieth = await subscribe("https://hooks.example.com/50");
    const over = await api("POST", "/admin/api/hooks", {
      body: { url: "https://hooks.example.com/51", formId: "contact", event: "submission.accepted" },
    });
    expect(over.status).toBe(409);
    expect(over.headers.get("Gatepost-Error-Code")).toBe("hook_limit_reached");
    expect(((await over.json()) as { title: string }).title).toMatch(/already has 50 subscriptions/);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM hook_subscriptions WHERE ended_at IS NULL").first("n")).toBe(50);
    expect((await api("DELETE", `/admin/api/hooks/${fiftieth.id}`)).status).toBe(204);
    await subscribe("https://hooks.example.com/51");
    // The refused one left no audit row.
    expect((await audit()).filter((row) => row.action === "hook.create")).toHaveLength(2);
  });
});

describe("delivery through the outbox", () => {
  it("sends each accepted submission to the subscribed URL, signed with the subscription's own secret, in the accept batch's rows", async () => {
    const hook = await subscribe();
    await sink.acceptSecrets(hook.secret!);
    const id = await accept();
    const rows = await deliveriesOf(id);
    expect(rows).toEqual([
      { id: expect.stringMatching(/^msg_[0-9a-f]{32}$/), destination: hook.id, status: "delivered", last_error: null },
    ]);
    const seen = await sink.state();
    expect(seen.requests).toEqual([expect.objectContaining({ id: rows[0].id, signatureValid: true, status: 200 })]);
    expect(seen.unique[0].payload).toMatchObject({ type: "submission.created", form: "contact", submission: { id, fields: VALID } });

    // The sample is exactly what the subscription received.
    const sample = await api("GET", "/admin/api/forms/contact/sample", { appEnv: hookEnv() });
    expect(sample.status).toBe(200);
    expect(((await sample.json()) as unknown[])[0]).toEqual(seen.unique[0].payload);
  });

  it("without its secret, the receiver refuses the delivery: the signature is the subscription's, not the sink's", async () => {
    await subscribe();
    const id = await accept();
    const [row] = await deliveriesOf(id);
    expect(row.status).toBe("pending");
    expect((await sink.state()).requests).toEqual([expect.objectContaining({ signatureValid: false, status: 401 })]);
  });

  it("a 410 ends the subscription (audited): the delivery is dead at once and the next submission gets no row", async () => {
    const hook = await subscribe();
    await sink.setMode("http500");
    const first = await accept();
    expect((await deliveriesOf(first))[0]).toMatchObject({ destination: hook.id, status: "pending" });
    const settings = parseSettings(hookEnv());
    const gone: typeof fetch = async () => new Response("unsubscribed", { status: 410 });
    const report = await drainOutbox(env.DB, settings, { fetch: gone, now: () => Date.now() + 3_600_000 });
    expect(report).toMatchObject({ claimed: 1, dead: 1 });
    expect((await deliveriesOf(first))[0]).toMatchObject({ status: "dead", last_error: "HTTP 410: the subscriber ended the subscription" });
    const ended = await env.DB.prepare("SELECT ended_at, ended_by FROM hook_subscriptions WHERE id = ?").bind(hook.id).first();
    expect(ended).toMatchObject({ ended_at: expect.any(Number), ended_by: "receiver" });
    expect((await audit()).filter((row) => row.action === "hook.ended")).toEqual([
      expect.objectContaining({ target: hook.id, actor: "gatepost", detail: expect.stringContaining("HTTP 410") }),
    ]);
    expect(((await (await api("GET", "/admin/api/hooks")).json()) as { hooks: Hook[] }).hooks).toEqual([]);
    await sink.setMode("normal");
    expect(await deliveriesOf(await accept())).toEqual([]);
  });

  it("a deleted subscription's queued deliveries settle as not sent", async () => {
    const hook = await subscribe();
    await sink.setMode("http500");
    const id = await accept();
    expect((await api("DELETE", `/admin/api/hooks/${hook.id}`)).status).toBe(204);
    await sink.setMode("normal");
    await drainOutbox(env.DB, parseSettings(hookEnv()), { now: () => Date.now() + 3_600_000 });
    expect((await deliveriesOf(id))[0]).toMatchObject({ status: "delivered", last_error: "not sent: the subscription was deleted" });
    expect((await sink.state()).requests.filter((r) => r.status === 200)).toEqual([]);
  });
});

describe("GET /admin/api/forms/:formId/sample", () => {
  it("answers sample values marked test before any submission, for viewers too; 404 for an unknown form", async () => {
    const viewer = await makeApiToken("viewer");
    const sample = await api("GET", "/admin/api/forms/contact/sample", { token: viewer });
    expect(sample.status).toBe(200);
    const [one] = (await sample.json()) as Array<{ type: string; submission: { test: boolean; fields: Record<string, unknown> } }>;
    expect(one.type).toBe("submission.created");
    expect(one.submission.test).toBe(true);
    expect(Object.keys(one.submission.fields)).toEqual(["name", "email", "message"]);
    const unknown = await api("GET", "/admin/api/forms/nope/sample");
    expect(unknown.status).toBe(404);
    expect((await api("GET", "/admin/api/forms/contact/sample", { token: null })).status).toBe(401);
  });
});

describe("the console", () => {
  it("lists a form's subscriptions beside its destinations, and an admin deletes one there (audited)", async () => {
    const appEnv = await consoleAdminEnv();
    const hook = await subscribe("https://hooks.example.com/catch/console", "contact", appEnv);
    const page = await appFetch(adminGet("/admin/forms/contact/destinations", await sessionCookie("admin", appEnv)), appEnv);
    const html = await page.text();
    expect(html).toContain("Subscriptions by API");
    expect(html).toContain(hook.id);
    expect(html).toContain("Delete the subscription to hooks.example.com");
    expect(html).not.toContain("/catch/console");
    const viewerPage = await (
      await appFetch(adminGet("/admin/forms/contact/destinations", await sessionCookie("viewer", appEnv)), appEnv)
    ).text();
    expect(viewerPage).toContain(hook.id);
    expect(viewerPage).not.toContain("Delete the subscription");

    const route = encodeURIComponent("routes/admin.forms.$formId_.destinations");
    const deleted = await appFetch(
      adminPost(
        `/admin/forms/contact/destinations?_data=${route}`,
        { intent: `unsubscribe:${hook.id}` },
        { Cookie: await sessionCookie("admin", appEnv) },
      ),
      appEnv,
    );
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toMatchObject({ ok: true, message: "The subscription was deleted." });
    expect(((await (await api("GET", "/admin/api/hooks", { appEnv })).json()) as { hooks: Hook[] }).hooks).toEqual([]);
    expect((await audit()).filter((row) => row.action.startsWith("hook."))).toEqual([
      expect.objectContaining({ action: "hook.create", target: hook.id }),
      expect.objectContaining({ action: "hook.delete", target: hook.id, actor: "password:admin" }),
    ]);
  });
});

import { env } from "cloudflare:test";
import { Validator } from "@cfworker/json-schema";
import { beforeEach, describe, expect, it } from "vitest";
import { MAINTENANCE_JOBS } from "~/lib/maintenance/maintenance.server";
import { MAX_JSON_BYTES } from "~/lib/auth/api-auth.server";
import { parseSettings } from "~/lib/settings/settings.server";
import { FORMS } from "~/lib/forms/registry";
import { appFetch, countRows, formPost, apiPost, sink, standin, standinToken, clearTables } from "./helpers";
import { adminGet, adminPost, sessionCookie } from "./admin-helpers";
import {
  api,
  API_TOKEN,
  consoleAdminEnv,
  consoleEnv,
  makeApiToken,
  putAndPublish,
  resetConsoleForms,
  sampleDefinition,
} from "./console-helpers";

// Forms made in the console, end to end through the real Worker: drafts and versions through the admin
// API, the page and both post channels, archive (410), the field-name confirmation, the audit trail, the
// published JSON Schema checked with a kept validator, and every way into the API.

const FIELDS = { name: "Ada Lovelace", email: "ada@example.org", rating: "good" };

async function post(id: string, fields: Record<string, string> = FIELDS, appEnv = consoleEnv()) {
  return appFetch(formPost(`/f/${id}`, { ...fields, "cf-turnstile-response": standinToken({ action: id }) }), appEnv);
}

async function auditRows(action: string) {
  const { results } = await env.DB.prepare("SELECT action, target, detail, actor FROM audit_log WHERE action = ?1 ORDER BY id")
    .bind(action)
    .all();
  return results as { action: string; target: string; detail: string | null; actor: string }[];
}

beforeEach(async () => {
  await standin.reset();
  await sink.reset();
  await clearTables();
  await resetConsoleForms();
  await env.DB.prepare("DELETE FROM audit_log").run();
});

describe("console forms: drafts, versions and the live form", () => {
  it("creates a draft that changes nothing live, publishes it as version 1, and records the version with each submission", async () => {
    const put = await api("PUT", "/admin/api/forms/feedback", { body: sampleDefinition() });
    expect(put.status).toBe(201);
    expect(await put.json()).toEqual({ id: "feedback", draft: true, created: true });
    // A draft is not live.
    expect((await appFetch(new Request("http://localhost/f/feedback"), consoleEnv())).status).toBe(404);
    const published = await api("POST", "/admin/api/forms/feedback/publish");
    expect(published.status).toBe(200);
    expect(await published.json()).toMatchObject({ id: "feedback", version: 1 });

    const page = await appFetch(new Request("http://localhost/f/feedback"), consoleEnv());
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Tell us what you think.");
    expect(html).toContain('name="rating"');

    expect((await post("feedback")).status).toBe(303);
    const viaApi = await appFetch(
      apiPost("feedback", { ...FIELDS, "cf-turnstile-response": standinToken({ action: "feedback" }) }),
      consoleEnv(),
    );
    expect(viaApi.status).toBe(201);
    const { results } = await env.DB.prepare("SELECT form_version, fields FROM submissions WHERE form_id = 'feedback'").all();
    expect(results.map((r) => r.form_version)).toEqual(["1", "1"]);
    expect(JSON.parse(String(results[0].fields))).toEqual(FIELDS);
  });

  it("keeps serving version 1 while a second draft waits, then version 2 once published; every version is kept", async () => {
    await putAndPublish("feedback", sampleDefinition());
    const renamed = sampleDefinition({ title: "Feedback, please" });
    expect((await api("PUT", "/admin/api/forms/feedback", { body: renamed })).status).toBe(200);
    expect(await (await appFetch(new Request("http://localhost/f/feedback"), consoleEnv())).text()).not.toContain("Feedback, please");
    const detail = (await (await api("GET", "/admin/api/forms/feedback")).json()) as { version: string; draft: { title: string } };
    expect(detail).toMatchObject({ version: "1", draft: { title: "Feedback, please" } });

    expect((await api("POST", "/admin/api/forms/feedback/publish")).status).toBe(200);
    expect(await (await appFetch(new Request("http://localhost/f/feedback"), consoleEnv())).text()).toContain("Feedback, please");
    await post("feedback");
    const list = (await (await api("GET", "/admin/api/forms")).json()) as { forms: Array<Record<string, unknown>> };
    const mine = list.forms.find((f) => f.id === "feedback");
    expect(mine).toMatchObject({ source: "console", status: "published", version: "2", hasDraft: false });
    expect((mine!.versions as Array<{ version: number }>).map((v) => v.version)).toEqual([2, 1]);
    expect(list.forms.filter((f) => f.source === "code").map((f) => f.id)).toEqual(FORMS.map((f) => f.id));
    expect(await countRows("form_versions")).toBe(2);
    const row = await env.DB.prepare("SELECT form_version FROM submissions WHERE form_id = 'feedback'").first();
    expect(row).toEqual({ form_version: "2" });
  });

  it("shows a submission with the labels of the version it was validated against", async () => {
    await putAndPublish("feedback", sampleDefinition());
    await post("feedback");
    const relabelled = sampleDefinition();
    (relabelled.fields as Array<{ label: string }>)[0].label = "Full name";
    await putAndPublish("feedback", relabelled);
    const id = String((await env.DB.prepare("SELECT id FROM submissions").first())!.id);
    const appEnv = await consoleAdminEnv();
    const page = await appFetch(adminGet(`/admin/submissions/${id}`, await sessionCookie("admin", appEnv)), appEnv);
    const html = await page.text();
    expect(html).toContain("Your name");
    expect(html).not.toContain("Full name");
    expect(html).toMatch(/Form version<\/dt><dd>1</);
  });

  it("needs a confirmation to rename or remove a field that holds data, naming it and saying why", async () => {
    await putAndPublish("feedback", sampleDefinition());
    await post("feedback");
    const renamed = sampleDefinition();
    (renamed.fields as Array<{ name: string }>)[0].name = "fullName";
    await api("PUT", "/admin/api/forms/feedback", { body: renamed });
    const refused = await api("POST", "/admin/api/forms/feedback/publish");
    expect(refused.status).toBe(409);
    expect(refused.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    const problem = (await refused.json()) as { code: string; title: string; fields: unknown };
    expect(problem.code).toBe("form_field_names_in_use");
    expect(problem.title).toMatch(/webhook receivers depend on field names/);
    expect(problem.fields).toEqual([{ name: "name", submissions: 1, read: 1, more: false }]);
    // Nothing was published.
    expect((await (await api("GET", "/admin/api/forms/feedback")).json()) as object).toMatchObject({ version: "1" });
    const confirmed = await api("POST", "/admin/api/forms/feedback/publish", { body: { confirmFieldNames: true } });
    expect(confirmed.status).toBe(200);
    expect(((await auditRows("form.publish")).at(-1)!.detail ?? "").includes('"confirmedFieldNames":true')).toBe(true);
  });

  it("publishes a rename freely while no submission holds the field", async () => {
    await putAndPublish("feedback", sampleDefinition());
    const renamed = sampleDefinition();
    (renamed.fields as Array<{ name: string }>)[0].name = "fullName";
    expect(await putAndPublish("feedback", renamed)).toBe(2);
  });

  it("archives a form: its page and both post channels answer 410 form_archived, stored submissions stay", async () => {
    await putAndPublish("feedback", sampleDefinition());
    expect((await post("feedback")).status).toBe(303);
    const appEnv = await consoleAdminEnv();
    const admin = await sessionCookie("admin", appEnv);
    const archived = await appFetch(adminPost("/admin/forms/feedback", { intent: "archive" }, { Cookie: admin }), appEnv);
    expect(archived.status).toBe(200);
    for (const response of [
      await appFetch(new Request("http://localhost/f/feedback"), consoleEnv()),
      await post("feedback"),
      await appFetch(apiPost("feedback", { ...FIELDS, "cf-turnstile-response": standinToken({ action: "feedback" }) }), consoleEnv()),
    ]) {
      expect(response.status).toBe(410);
      expect(response.headers.get("Gatepost-Error-Code")).toBe("form_archived");
    }
    expect(await countRows("submissions")).toBe(1);
    // The schema stays: stored submissions are still delivered to receivers who check them.
    expect((await appFetch(new Request("http://localhost/f/feedback/schema.json"), consoleEnv())).status).toBe(200);
    await appFetch(adminPost("/admin/forms/feedback", { intent: "restore" }, { Cookie: admin }), appEnv);
    expect((await post("feedback")).status).toBe(303);
    expect((await auditRows("form.archive")).length).toBe(1);
    expect((await auditRows("form.restore")).length).toBe(1);
  });

  it("applies a console form's retention, archived or not, with the files' forms", async () => {
    await putAndPublish("feedback", sampleDefinition({ retentionDays: 2 }));
    await post("feedback");
    await post("feedback");
    const appEnv = await consoleAdminEnv();
    await appFetch(adminPost("/admin/forms/feedback", { intent: "archive" }, { Cookie: await sessionCookie("admin", appEnv) }), appEnv);
    // One of the two is three days old.
    await env.DB.prepare("UPDATE submissions SET received_at = ?1 WHERE id = (SELECT id FROM submissions LIMIT 1)")
      .bind(new Date(Date.now() - 3 * 86_400_000).toISOString())
      .run();
    const job = MAINTENANCE_JOBS.find((j) => j.name === "apply-retention")!;
    const reports = (await job.run({
      db: env.DB,
      bucket: env.UPLOADS,
      settings: parseSettings({}),
      mailer: null,
      now: () => Date.now(),
    })) as Array<{
      formId: string;
      deleted: number;
    }>;
    expect(reports.find((r) => r.formId === "feedback")?.deleted).toBe(1);
    expect(reports.map((r) => r.formId)).toEqual(expect.arrayContaining(["contact", "newsletter", "feedback"]));
    expect(await countRows("submissions")).toBe(1);
  });

  it("writes every change to the audit log with what changed", async () => {
    await putAndPublish("feedback", sampleDefinition());
    const changed = sampleDefinition({ retentionDays: 7 });
    (changed.fields as unknown[]).push({ name: "comment", type: "textarea", label: "Comment", hint: "Anything else." });
    await putAndPublish("feedback", changed);
    const publishes = await auditRows("form.publish");
    expect(publishes.map((r) => r.actor)).toEqual(["token:ADMIN_API_TOKEN", "token:ADMIN_API_TOKEN"]);
    expect(JSON.parse(publishes[1].detail!)).toEqual({ version: 2, changes: ["retentionDays 30 → 7", "field comment added (textarea)"] });
    expect((await auditRows("form.create")).map((r) => r.target)).toEqual(["feedback"]);
    expect(await auditRows("form.draft")).toHaveLength(1);
  });

  it("refuses a definition that fails the one check, listing each problem; nothing is saved", async () => {
    const catastrophic = sampleDefinition();
    (catastrophic.fields as Array<Record<string, unknown>>)[0].pattern = "(a+)+$";
    const withControl = sampleDefinition();
    (withControl.fields as Array<Record<string, unknown>>)[1].label = "E-mail\u0007";
    for (const [body, expected] of [
      [catastrophic, /feedback\.name: pattern "\(a\+\)\+\$" can match the same text in more than one way/],
      [withControl, /feedback\.email: label: must be one line of plain text/],
    ] as const) {
      const refused = await api("PUT", "/admin/api/forms/feedback", { body });
      expect(refused.status).toBe(422);
      const problem = (await refused.json()) as { code: string; problems: string[] };
      expect(problem.code).toBe("form_definition_invalid");
      expect(problem.problems.join("\n")).toMatch(expected);
    }
    expect(await countRows("forms")).toBe(0);
    // A code form's id is not the console's to take.
    const code = await api("PUT", "/admin/api/forms/contact", { body: sampleDefinition() });
    expect(code.status).toBe(409);
    expect(((await code.json()) as { code: string }).code).toBe("form_defined_in_code");
  });

  it("publishes fields without hints, and the editor suggests a hint for each visible one", async () => {
    const bare = sampleDefinition();
    for (const field of bare.fields as Array<Record<string, unknown>>) delete field.hint;
    await putAndPublish("feedback", bare);
    expect((await appFetch(new Request("http://localhost/f/feedback"), consoleEnv())).status).toBe(200);
    const appEnv = await consoleAdminEnv();
    const editor = await appFetch(adminGet("/admin/forms/feedback", await sessionCookie("admin", appEnv)), appEnv);
    const html = await editor.text();
    expect(html).toContain("Suggestions");
    expect(html).toContain("Your name: a hint (shown under the label, read out with the field) would tell people what to enter.");
    expect(html).not.toContain("to fix before publishing");
  });

  it("refuses an id whose settings would be another form's, through the API and the console, for every suffix that can", async () => {
    // contact-slack's webhook URL would be CONTACT_SLACK_WEBHOOK_URL, form contact's Slack URL.
    for (const id of ["contact-slack", "feedback-discord"]) {
      const refused = await api("PUT", `/admin/api/forms/${id}`, { body: sampleDefinition() });
      expect(refused.status, id).toBe(409);
      const problem = (await refused.json()) as { code: string; problems: string[] };
      expect(problem.code).toBe("form_id_settings_clash");
      expect(problem.problems.join("\n")).toMatch(/_WEBHOOK_URL, which is form "(contact|feedback)"'s (SLACK|DISCORD)_WEBHOOK_URL/);
    }
    const appEnv = await consoleAdminEnv();
    const create = { intent: "create", id: "contact-slack", title: "Contact on Slack" };
    const viaConsole = await appFetch(adminPost("/admin/forms", create, { Cookie: await sessionCookie("admin", appEnv) }), appEnv);
    expect(viaConsole.status).toBe(409);
    expect(await viaConsole.text()).toContain("would share a setting");
    expect(await countRows("forms")).toBe(0);
    // The shorter id is the one that keeps its names.
    expect((await api("PUT", "/admin/api/forms/slack", { body: sampleDefinition() })).status).toBe(201);
  });

  it("escapes whatever an owner types: a label that looks like markup is shown as text", async () => {
    const tricky = sampleDefinition({ title: '<img src=x onerror="alert(1)">' });
    (tricky.fields as Array<Record<string, unknown>>)[0].label = "<script>alert(1)</script>";
    await putAndPublish("feedback", tricky);
    const response = await appFetch(new Request("http://localhost/f/feedback"), consoleEnv());
    const html = await response.text();
    expect(response.status, html.slice(0, 300)).toBe(200);
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).not.toContain('<img src=x onerror="alert(1)">');
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });
});

describe("the console's form pages say what is true", () => {
  async function formPage(path: string) {
    const e = await consoleAdminEnv();
    const html = await (await appFetch(adminGet(path, await sessionCookie("admin", e)), e)).text();
    return html.replace(/<!-- -->/g, "");
  }

  it("lists no changes since a published version for a form never published, and lists them once it was", async () => {
    await api("PUT", "/admin/api/forms/feedback", { body: sampleDefinition() });
    expect(await formPage("/admin/forms/feedback")).not.toContain("Changes since the published version");
    await api("POST", "/admin/api/forms/feedback/publish");
    await api("PUT", "/admin/api/forms/feedback", { body: sampleDefinition({ title: "Feedback, again" }) });
    expect(await formPage("/admin/forms/feedback")).toContain("Changes since the published version");
  });

  it("says a console form shadowed by a form file is not served, in the list and on the file's page", async () => {
    // Made before a file with its id was added: the catalog serves the file.
    const now = Date.now();
    await env.DB.prepare("INSERT INTO forms (id, draft, draft_updated_at, created_at, updated_at) VALUES ('contact', ?1, ?2, ?2, ?2)")
      .bind(JSON.stringify({ ...sampleDefinition(), id: "contact" }), now)
      .run();
    const list = await formPage("/admin/forms");
    const rows = list.split("<tr").filter((row) => row.includes("/admin/forms/contact"));
    expect(rows.map((row) => row.includes("Not served: the form file with this id wins"))).toEqual([false, true]);
    const page = await formPage("/admin/forms/contact");
    expect(page).toContain("It is not served: the form file with the same id wins.");
    expect(await formPage("/admin/forms/newsletter")).not.toContain("It is not served");
  });

  it("names a form file's field table by its one Fields heading", async () => {
    const page = await formPage("/admin/forms/contact");
    expect(page.match(/>Fields</g)).toHaveLength(1);
    expect(page).toContain('<h2 id="fields-title">Fields</h2>');
    expect(page).toContain('aria-labelledby="fields-title"');
  });
});

describe("the published JSON Schema", () => {
  it("describes the fields as JSON Schema 2020-12, and a delivered payload passes a kept validator", async () => {
    await putAndPublish(
      "feedback",
      sampleDefinition(),
      consoleEnv({ FEEDBACK_WEBHOOK_URL: sink.url(), FEEDBACK_WEBHOOK_SECRET: sink.secret(), ALLOW_LOOPBACK_WEBHOOKS: "true" }),
    );
    const appEnv = consoleEnv({
      FEEDBACK_WEBHOOK_URL: sink.url(),
      FEEDBACK_WEBHOOK_SECRET: sink.secret(),
      ALLOW_LOOPBACK_WEBHOOKS: "true",
    });
    const response = await appFetch(new Request("http://localhost/f/feedback/schema.json"), appEnv);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/schema\+json/);
    const schema = (await response.json()) as Record<string, any>;
    expect(schema).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $id: "http://localhost/f/feedback/schema.json?version=1",
      type: "object",
      required: ["name", "email", "rating"],
      additionalProperties: false,
    });
    expect(schema.properties.email).toMatchObject({ type: "string", maxLength: 254 });
    expect(schema.properties.email.pattern).toEqual(expect.any(String));
    expect(schema.properties.rating).toMatchObject({ type: ["string", "null"], enum: ["good", "bad", null] });

    expect((await post("feedback", { name: "Ada", email: "ada@example.org", rating: "" }, appEnv)).status).toBe(303);
    const payload = (await sink.state()).unique[0].payload;
    expect(payload.submission.form_version).toBe("1");
    const validator = new Validator(schema as never, "2020-12");
    expect(validator.validate(payload.submission.fields).valid).toBe(true);
    expect(validator.validate({ ...payload.submission.fields, rating: "meh" }).valid).toBe(false);
    expect(validator.validate({ ...payload.submission.fields, extra: 1 }).valid).toBe(false);
  });

  it("serves each kept version of a console form by number, for the version a payload names", async () => {
    await putAndPublish("feedback", sampleDefinition());
    const second = sampleDefinition();
    (second.fields as unknown[]).push({ name: "comment", type: "textarea", label: "Comment", hint: "Anything." });
    await putAndPublish("feedback", second);
    const schemaOf = async (query: string) => {
      const response = await appFetch(new Request(`http://localhost/f/feedback/schema.json${query}`), consoleEnv());
      return {
        status: response.status,
        cache: response.headers.get("cache-control"),
        body: (await response.json()) as Record<string, any>,
      };
    };
    const current = await schemaOf("");
    const versionOf = (schema: Record<string, any>) => new URL(schema.$id).searchParams.get("version");
    expect([versionOf(current.body), Object.keys(current.body.properties)]).toEqual(["2", ["name", "email", "rating", "comment"]]);
    const first = await schemaOf("?version=1");
    expect([versionOf(first.body), Object.keys(first.body.properties), first.cache]).toEqual([
      "1",
      ["name", "email", "rating"],
      "public, max-age=86400, immutable",
    ]);
    expect((await schemaOf("?version=7")).status).toBe(404);
    expect((await schemaOf("?version=../../x")).status).toBe(404);
  });

  it("is served for code forms too, and 404 for a form that does not exist", async () => {
    const schema = (await (await appFetch(new Request("http://localhost/f/contact/schema.json"), consoleEnv())).json()) as Record<
      string,
      any
    >;
    expect(new URL(schema.$id).searchParams.get("version")).toMatch(/^code-[0-9a-f]{12}$/);
    expect(schema.properties.message).toMatchObject({ type: "string", minLength: 10, maxLength: 5000 });
    const missing = await appFetch(new Request("http://localhost/f/nope/schema.json"), consoleEnv());
    expect(missing.status).toBe(404);
    expect(missing.headers.get("Gatepost-Error-Code")).toBe("form_not_found");
  });
});

describe("the admin API's doors", () => {
  const makeToken = makeApiToken;

  it("refuses a body over its own limit with 413, naming that limit", async () => {
    const big = JSON.stringify({ ...sampleDefinition(), description: "x".repeat(MAX_JSON_BYTES) });
    const response = await api("PUT", "/admin/api/forms/feedback", { body: JSON.parse(big) });
    expect(response.status).toBe(413);
    const problem = (await response.json()) as { code: string; title: string };
    expect(problem.code).toBe("admin_body_too_large");
    expect(problem.title).toContain(`the limit is ${MAX_JSON_BYTES / 1024} KiB`);
    // Just under the limit it is read (and refused for what it says, not for its size).
    const fits = await api("PUT", "/admin/api/forms/feedback", { body: { ...sampleDefinition(), description: "x".repeat(200_000) } });
    expect(fits.status).not.toBe(413);
  });

  it("answers 401 problem+json without a valid token or session", async () => {
    for (const token of [null, "not-a-real-token-but-long-enough-0123456789", "gpat_nope_nope_nope_nope_nope_nope_nope_0123"]) {
      const response = await api("GET", "/admin/api/forms", { token });
      expect(response.status).toBe(401);
      expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(response.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
      expect(((await response.json()) as { code: string }).code).toBe("admin_unauthenticated");
    }
    const malformed = await api("GET", "/admin/api/forms", { token: null, headers: { Authorization: "Basic YWRtaW46YWRtaW4=" } });
    expect(malformed.status).toBe(401);
  });

  it("lets a viewer's token read and answers 403 to its writes; an admin's token writes", async () => {
    const viewer = await makeToken("viewer");
    expect((await api("GET", "/admin/api/forms", { token: viewer })).status).toBe(200);
    const put = await api("PUT", "/admin/api/forms/feedback", { token: viewer, body: sampleDefinition() });
    expect(put.status).toBe(403);
    expect(((await put.json()) as { code: string }).code).toBe("admin_forbidden");
    expect((await api("POST", "/admin/api/forms/feedback/publish", { token: viewer })).status).toBe(403);
    const admin = await makeToken("admin");
    expect((await api("PUT", "/admin/api/forms/feedback", { token: admin, body: sampleDefinition() })).status).toBe(201);
    const { results } = await env.DB.prepare("SELECT token_hash FROM admin_api_tokens").all();
    // Only hashes are kept, never the token.
    expect(results.map((r) => r.token_hash)).toEqual(expect.arrayContaining([expect.stringMatching(/^[0-9a-f]{64}$/)]));
    expect(JSON.stringify(results)).not.toContain(admin.slice(5));
    expect((await auditRows("form.create"))[0].actor).toMatch(/^token:/);
  });

  it("stops a revoked token at once", async () => {
    const admin = await makeToken("admin");
    const id = String((await env.DB.prepare("SELECT id FROM admin_api_tokens").first())!.id);
    expect((await api("GET", "/admin/api/forms", { token: admin })).status).toBe(200);
    const appEnv = await consoleAdminEnv();
    const cookie = await sessionCookie("admin", appEnv);
    await appFetch(adminPost("/admin/tokens?_data=routes%2Fadmin.tokens", { intent: "revoke", id }, { Cookie: cookie }), appEnv);
    expect((await api("GET", "/admin/api/forms", { token: admin })).status).toBe(401);
  });

  it("takes the console's own session from the console's pages, and refuses it cross-site", async () => {
    const appEnv = await consoleAdminEnv();
    const cookie = await sessionCookie("admin", appEnv);
    const own = await api("GET", "/admin/api/forms", { token: null, appEnv, headers: { Cookie: cookie, "Sec-Fetch-Site": "same-origin" } });
    expect(own.status).toBe(200);
    const crossRead = await api("GET", "/admin/api/forms", {
      token: null,
      appEnv,
      headers: { Cookie: cookie, "Sec-Fetch-Site": "cross-site" },
    });
    expect(crossRead.status).toBe(403);
    const crossWrite = await api("PUT", "/admin/api/forms/feedback", {
      token: null,
      appEnv,
      body: sampleDefinition(),
      headers: { Cookie: cookie, Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" },
    });
    expect(crossWrite.status).toBe(403);
    expect(crossWrite.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(((await crossWrite.json()) as { code: string }).code).toBe("admin_cross_origin");
    expect(await countRows("forms")).toBe(0);
    const viewerCookie = await sessionCookie("viewer", appEnv);
    const viewerWrite = await api("PUT", "/admin/api/forms/feedback", {
      token: null,
      appEnv,
      body: sampleDefinition(),
      headers: { Cookie: viewerCookie, Origin: "http://localhost", "Sec-Fetch-Site": "same-origin" },
    });
    expect(viewerWrite.status).toBe(403);
  });

  it("opens nothing with ADMIN_API_TOKEN unset", async () => {
    const response = await api("GET", "/admin/api/forms", { appEnv: consoleEnv({ ADMIN_API_TOKEN: "" }) });
    expect(response.status).toBe(401);
    expect(API_TOKEN.length).toBeGreaterThanOrEqual(32);
  });
});

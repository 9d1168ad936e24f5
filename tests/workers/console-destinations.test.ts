import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { MAINTENANCE_JOBS } from "~/lib/maintenance/maintenance.server";
import { parseSettings } from "~/lib/settings/settings.server";
import { adminEnv, adminGet, adminPost, sessionCookie } from "./admin-helpers";
import { CONFIRMATION_NEEDS } from "~/lib/destinations/confirmation/spec";
// The local stand-ins' ids, as the Worker's local defaults read them (each kind's local-sink.json).
import { LOCAL_AIRTABLE as AIRTABLE_LOCAL } from "~/lib/destinations/airtable/spec";
import { LOCAL_SPREADSHEET_ID as SHEETS_LOCAL_ID } from "~/lib/destinations/sheets/spec";
import { expectConsoleErrors } from "../support/fail-on-console";
import { appFetch, clearTables, countRows, formPost, sink, standin, standinToken } from "./helpers";
import { API_TOKEN, ENCRYPTION_KEY, putAndPublish, resetConsoleForms, sampleDefinition } from "./console-helpers";

// Destinations set in the console, for console and code forms: sealed in D1 with SETTINGS_ENCRYPTION_KEY
// and opened for delivery, the environment winning wherever it sets a value, a webhook secret generated,
// shown once and rotated with an overlap, key rotation by the cron, and "Send a test" through the outbox.

const OTHER_KEY = "another-settings-encryption-key-abcdef0123456789";

function appEnv(overrides: Partial<Record<string, string>> = {}): Promise<Env> {
  return adminEnv({ ADMIN_API_TOKEN: API_TOKEN, SETTINGS_ENCRYPTION_KEY: ENCRYPTION_KEY, ALLOW_LOOPBACK_WEBHOOKS: "true", ...overrides });
}

/** Posts the destinations page's form as the console does (JSON answer via Remix's _data). */
async function destinations(formId: string, fields: Record<string, string>, e: Env) {
  const cookie = await sessionCookie("admin", e);
  return appFetch(
    adminPost(`/admin/forms/${formId}/destinations?_data=${encodeURIComponent("routes/admin.forms.$formId_.destinations")}`, fields, {
      Cookie: cookie,
    }),
    e,
  );
}

async function postContact(e: Env) {
  const response = await appFetch(
    formPost("/f/contact", {
      name: "Ada",
      email: "ada@example.org",
      message: "Sent to the console's webhook.",
      "cf-turnstile-response": standinToken(),
    }),
    e,
  );
  expect(response.status).toBe(303);
  return response.headers.get("location")!.split("/").pop()!;
}

beforeEach(async () => {
  await standin.reset();
  await sink.reset();
  await clearTables();
  await resetConsoleForms();
});

describe("destinations set in the console", () => {
  it("seals a webhook URL and secret in D1 and delivers a code form's submission with them, signed", async () => {
    const e = await appEnv();
    expect((await destinations("contact", { intent: "set:WEBHOOK_URL", value: sink.url() }, e)).status).toBe(200);
    const made = await destinations("contact", { intent: "generate:WEBHOOK_SECRET" }, e);
    const { secret } = (await made.json()) as { secret: string };
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    // At rest: ciphertext only, naming its key.
    const { results } = await env.DB.prepare("SELECT name, value FROM form_settings WHERE form_id = 'contact' ORDER BY name").all();
    expect(results.map((r) => r.name)).toEqual(["WEBHOOK_SECRET", "WEBHOOK_URL"]);
    for (const row of results) {
      expect(String(row.value)).toMatch(/^v1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
      expect(String(row.value)).not.toContain("127.0.0.1");
      expect(String(row.value)).not.toContain(secret.slice(6, 20));
    }
    await sink.acceptSecrets(secret);
    await postContact(e);
    const state = await sink.state();
    expect(state.requests).toHaveLength(1);
    expect(state.requests[0]).toMatchObject({ signatureValid: true, signatures: 1 });
    expect(state.unique[0].payload.form).toBe("contact");
    const page = await appFetch(adminGet("/admin/forms/contact/destinations", await sessionCookie("admin", e)), e);
    const html = await page.text();
    expect(html).toContain("Set here: http://127.0.0.1");
    expect(html).not.toContain(secret);
    expect(await countRows("audit_log")).toBeGreaterThanOrEqual(2);
    const audit = await env.DB.prepare("SELECT detail FROM audit_log WHERE action = 'form.setting' ORDER BY id").all();
    expect(audit.results.map((r) => JSON.parse(String(r.detail)))).toEqual([
      { setting: "WEBHOOK_URL", change: "set" },
      { setting: "WEBHOOK_SECRET", change: "generated" },
    ]);
    expect(JSON.stringify(audit.results)).not.toContain("127.0.0.1");
  });

  it("opens nothing sealed with another key: the setting is named as unreadable and not used", async () => {
    const e = await appEnv();
    await destinations("contact", { intent: "set:WEBHOOK_URL", value: sink.url() }, e);
    const other = await appEnv({ SETTINGS_ENCRYPTION_KEY: OTHER_KEY });
    await resetCatalogWith(other);
    await postContact(other);
    expect(await countRows("deliveries")).toBe(0);
    const dashboard = await appFetch(adminGet("/admin", await sessionCookie("admin", other)), other);
    expect(await dashboard.text()).toContain("The console&#x27;s WEBHOOK_URL of contact cannot be opened with SETTINGS_ENCRYPTION_KEY");
  });

  it("says under a form's unset e-mail provider settings that the site-wide ones stand in, and not once the form sets its own", async () => {
    const e = await appEnv({ EMAIL_PROVIDER: "resend", EMAIL_PROVIDER_API_KEY: "re_site_key_0123456789" });
    const page = async () =>
      (await (await appFetch(adminGet("/admin/forms/contact/destinations", await sessionCookie("admin", e)), e)).text()).replaceAll(
        "&#x27;",
        "'",
      );
    const before = await page();
    expect(before).toContain("Not set here, so the site-wide EMAIL_PROVIDER stands in: resend.");
    // The key is a secret: named, never shown.
    expect(before).toContain("Not set here, so the site-wide EMAIL_PROVIDER_API_KEY stands in.");
    expect(before).not.toContain("re_site_key_0123456789");
    expect(before).not.toContain("site-wide EMAIL_PROVIDER_URL");
    expect((await destinations("contact", { intent: "set:EMAIL_PROVIDER", value: "postmark" }, e)).status).toBe(200);
    const after = await page();
    expect(after).not.toContain("site-wide EMAIL_PROVIDER stands in");
    expect(after).toContain("Set here: postmark");
    // The form's provider wins with its own key: the site's key no longer stands in.
    expect(after).not.toContain("site-wide EMAIL_PROVIDER_API_KEY stands in");
  });

  it("lets the environment win: a value set there is used, shown as set by the environment, and cannot be changed here", async () => {
    const e = await appEnv();
    await destinations("contact", { intent: "set:WEBHOOK_URL", value: "https://console.example/hook" }, e);
    const fromEnv = await appEnv({ CONTACT_WEBHOOK_URL: sink.url(), CONTACT_WEBHOOK_SECRET: sink.secret() });
    await postContact(fromEnv);
    const state = await sink.state();
    expect(state.requests).toHaveLength(1);
    expect(state.requests[0].signatureValid).toBe(true);
    const html = await (
      await appFetch(adminGet("/admin/forms/contact/destinations", await sessionCookie("admin", fromEnv)), fromEnv)
    ).text();
    expect(html).toContain("Set by the environment (CONTACT_WEBHOOK_URL), which wins: change it there.");
    // A secret from the environment was never shown here, so nothing says "shown once".
    expect(html).toContain("Set by the environment (CONTACT_WEBHOOK_SECRET), which wins: change it there.");
    expect(html).not.toMatch(/shown once/i);
    // Where confirmations are switched on, the console says what they need to reach the public (ADR 091).
    const confirmationSection = html.slice(html.indexOf('id="title-CONFIRMATION"'));
    expect(confirmationSection.slice(0, confirmationSection.indexOf("</section>")).replaceAll("&#x27;", "'")).toContain(CONFIRMATION_NEEDS);
    // Where a value is typed, its label says "URL" as the title does.
    const open = await appFetch(adminGet("/admin/forms/newsletter/destinations", await sessionCookie("admin", e)), e);
    const labels = [...(await open.text()).matchAll(/<label[^>]*>([^<]+)</g)].map((m) => m[1]);
    expect(labels).toEqual(
      expect.arrayContaining([
        "New webhook URL",
        "New Slack incoming-webhook URL",
        "New Discord webhook URL",
        "New owner e-mail addresses",
      ]),
    );
    const refused = await destinations("contact", { intent: "set:WEBHOOK_URL", value: "https://other.example/hook" }, fromEnv);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toMatch(/set by the environment/);
  });

  it("refuses a URL that is not https (loopback only with ALLOW_LOOPBACK_WEBHOOKS) and addresses that are not addresses", async () => {
    const strict = await appEnv({ ALLOW_LOOPBACK_WEBHOOKS: "" });
    for (const [intent, value] of [
      ["set:WEBHOOK_URL", "http://example.org/hook"],
      ["set:WEBHOOK_URL", sink.url()],
      ["set:SLACK_WEBHOOK_URL", "javascript:alert(1)"],
      ["set:EMAIL_TO", "not an address"],
    ]) {
      const refused = await destinations("contact", { intent, value }, strict);
      expect(refused.status, `${intent} ${value}`).toBe(400);
    }
    expect(await countRows("form_settings")).toBe(0);
  });

  it("refuses a URL that reaches inside, in any spelling, when saved; with ALLOW_LOOPBACK_WEBHOOKS only loopback", async () => {
    const strict = await appEnv({ ALLOW_LOOPBACK_WEBHOOKS: "" });
    const local = await appEnv();
    const loopback = [
      "https://2130706433/hook",
      "https://0177.0.0.1/hook",
      "https://0x7f.1/hook",
      "https://127.1/hook",
      "https://[::ffff:127.0.0.1]/hook",
      "https://localhost./hook",
    ];
    const inside = [
      "https://10.1.2.3/hook",
      "https://[fd00::1]/hook",
      "https://169.254.169.254/latest",
      "https://0.0.0.0/hook",
      "https://[fe80::1]/hook",
    ];
    for (const suffix of ["WEBHOOK_URL", "SLACK_WEBHOOK_URL", "DISCORD_WEBHOOK_URL"]) {
      for (const value of [...loopback, ...inside]) {
        const refused = await destinations("contact", { intent: `set:${suffix}`, value }, strict);
        expect(refused.status, `${suffix} ${value}`).toBe(400);
        expect(((await refused.json()) as { message: string }).message).toMatch(/^The URL must not reach inside: /);
      }
      for (const value of inside) expect((await destinations("contact", { intent: `set:${suffix}`, value }, local)).status).toBe(400);
    }
    expect(await countRows("form_settings")).toBe(0);
    expect((await destinations("contact", { intent: "set:WEBHOOK_URL", value: "https://0x7f.1/hook" }, local)).status).toBe(200);
  });

  it("holds a delivery whose URL from the environment reaches inside, naming why, and sends nothing", async () => {
    const e = await appEnv({
      ALLOW_LOOPBACK_WEBHOOKS: "",
      CONTACT_WEBHOOK_URL: sink.url().replace("127.0.0.1", "0x7f.1"),
      CONTACT_WEBHOOK_SECRET: sink.secret(),
    });
    const held = expectConsoleErrors(/is held: CONTACT_WEBHOOK_URL must not reach inside/);
    await postContact(e);
    expect(held()).toHaveLength(1);
    expect((await sink.state()).requests).toHaveLength(0);
    const { results } = await env.DB.prepare("SELECT status, last_error FROM deliveries").all();
    expect(results).toHaveLength(1);
    expect(results[0].status).toBe("pending");
    expect(String(results[0].last_error)).toContain("CONTACT_WEBHOOK_URL must not reach inside: 127.0.0.1 is an IP address (loopback)");
  });

  it("refuses to keep settings without SETTINGS_ENCRYPTION_KEY", async () => {
    const e = await appEnv({ SETTINGS_ENCRYPTION_KEY: "" });
    const refused = await destinations("contact", { intent: "set:EMAIL_TO", value: "owner@example.org" }, e);
    expect(((await refused.json()) as { message: string }).message).toMatch(/encryption key is set/);
    expect(await countRows("form_settings")).toBe(0);
  });

  it("rotates the webhook secret with an overlap: both sign until the previous one is retired", async () => {
    const e = await appEnv();
    const first = ((await (await destinations("contact", { intent: "generate:WEBHOOK_SECRET" }, e)).json()) as { secret: string }).secret;
    await destinations("contact", { intent: "set:WEBHOOK_URL", value: `${sink.url()}` }, e);
    const second = ((await (await destinations("contact", { intent: "generate:WEBHOOK_SECRET" }, e)).json()) as { secret: string }).secret;
    expect(second).not.toBe(first);
    // A receiver still on the first secret accepts deliveries during the overlap.
    await sink.acceptSecrets(first);
    await postContact(e);
    expect((await sink.state()).requests.at(-1)).toMatchObject({ signatureValid: true, signatures: 2 });
    await destinations("contact", { intent: "retire:WEBHOOK_SECRET" }, e);
    await postContact(e);
    // Only the new secret signs now: the receiver on the old one refuses, until it moves.
    expect((await sink.state()).requests.at(-1)).toMatchObject({ signatureValid: false, signatures: 1 });
    await sink.acceptSecrets(second);
    await postContact(e);
    expect((await sink.state()).requests.at(-1)).toMatchObject({ signatureValid: true, signatures: 1 });
  });
});

/** Drops the built app's form catalog through a publish (the app's own way), for a changed key. */
async function resetCatalogWith(e: Env) {
  await putAndPublish("rekey", sampleDefinition(), e);
}

describe("key rotation", () => {
  it("reseals every console setting under the first key, after which the old key can go", async () => {
    const old = await appEnv();
    await destinations("contact", { intent: "set:EMAIL_TO", value: "owner@example.org" }, old);
    await destinations("newsletter", { intent: "set:WEBHOOK_URL", value: sink.url() }, old);
    const before = await env.DB.prepare("SELECT value FROM form_settings ORDER BY form_id").all();
    const settings = parseSettings({ SETTINGS_ENCRYPTION_KEY: `${OTHER_KEY} ${ENCRYPTION_KEY}` });
    const job = MAINTENANCE_JOBS.find((j) => j.name === "reseal-settings")!;
    expect(await job.run({ db: env.DB, bucket: env.UPLOADS, settings, mailer: null, now: () => Date.now() })).toEqual({
      resealed: 2,
      unreadable: 0,
    });
    expect(await job.run({ db: env.DB, bucket: env.UPLOADS, settings, mailer: null, now: () => Date.now() })).toEqual({
      resealed: 0,
      unreadable: 0,
    });
    const after = await env.DB.prepare("SELECT value FROM form_settings ORDER BY form_id").all();
    const keyIds = (rows: Record<string, unknown>[]) => rows.map((r) => String(r.value).split(".")[1]);
    const [oldId] = keyIds(before.results);
    const [newId] = keyIds(after.results);
    expect(newId).not.toBe(oldId);
    expect(keyIds(before.results)).toEqual([oldId, oldId]);
    expect(keyIds(after.results)).toEqual([newId, newId]);
    // Only the new key now: the settings still open.
    const rotated = await appEnv({ SETTINGS_ENCRYPTION_KEY: OTHER_KEY });
    await resetCatalogWith(rotated);
    const html = await (
      await appFetch(adminGet("/admin/forms/contact/destinations", await sessionCookie("admin", rotated)), rotated)
    ).text();
    expect(html).toContain("Set here: owner@example.org");
  });
});

describe("send a test", () => {
  it("delivers sample values to one destination through the outbox, shown in the submission's timeline", async () => {
    const e = await appEnv({ CONTACT_WEBHOOK_URL: sink.url(), CONTACT_WEBHOOK_SECRET: sink.secret() });
    const sent = await appFetch(
      adminPost("/admin/forms/contact/destinations", { intent: "test:webhook" }, { Cookie: await sessionCookie("admin", e) }),
      e,
    );
    expect(sent.status).toBe(303);
    const location = sent.headers.get("location")!;
    expect(location).toMatch(/^\/admin\/submissions\/[0-9a-f-]{36}\?test=webhook$/);
    const id = location.split("/").pop()!.split("?")[0];
    const row = await env.DB.prepare("SELECT test, form_version, verify_hostname FROM submissions WHERE id = ?1").bind(id).first();
    expect(row).toMatchObject({ test: 1, verify_hostname: null });
    const state = await sink.state();
    expect(state.requests).toHaveLength(1);
    expect(state.requests[0].signatureValid).toBe(true);
    expect(state.unique[0].payload.submission).toMatchObject({ id, test: true, fields: { email: "test@example.org" } });
    const timeline = await (await appFetch(adminGet(location, await sessionCookie("admin", e)), e)).text();
    expect(timeline).toContain("Delivery to webhook");
    expect(timeline).toContain("A test sent from the console");
    const audit = await env.DB.prepare("SELECT detail FROM audit_log WHERE action = 'form.test'").first();
    expect(JSON.parse(String(audit!.detail))).toEqual({ destination: "webhook", submission: id });
  });

  it("keeps Google Sheets' and Airtable's settings sealed, and a test of each arrives at the sink's stand-ins", async () => {
    const e = await appEnv();
    const origin = new URL(sink.url()).origin;
    const { sheetsKey } = (await sink.state()) as unknown as { sheetsKey: string };
    const values: Record<string, string> = {
      SHEETS_SPREADSHEET_ID: SHEETS_LOCAL_ID,
      SHEETS_SERVICE_ACCOUNT_KEY: sheetsKey,
      SHEETS_API_URL: `${origin}/sheets`,
      AIRTABLE_BASE_ID: AIRTABLE_LOCAL.baseId,
      AIRTABLE_TABLE: AIRTABLE_LOCAL.table,
      AIRTABLE_TOKEN: AIRTABLE_LOCAL.token,
      AIRTABLE_API_URL: `${origin}/airtable`,
    };
    for (const [name, value] of Object.entries(values)) {
      const saved = await destinations("contact", { intent: `set:${name}`, value }, e);
      expect([name, saved.status]).toEqual([name, 200]);
    }
    // Sealed: neither secret is in D1 as text, and the page never shows them again.
    const { results } = await env.DB.prepare("SELECT value FROM form_settings WHERE form_id = 'contact'").all<{ value: string }>();
    expect(results.some((row) => row.value.includes("PRIVATE KEY") || row.value.includes(AIRTABLE_LOCAL.token))).toBe(false);
    const page = await (await appFetch(adminGet("/admin/forms/contact/destinations", await sessionCookie("admin", e)), e)).text();
    expect(page).not.toContain(AIRTABLE_LOCAL.token);
    expect(page).toContain("Send a test to Google Sheets");
    expect(page).toContain("Send a test to Airtable");
    for (const kind of ["sheets", "airtable"]) {
      const sent = await appFetch(
        adminPost("/admin/forms/contact/destinations", { intent: `test:${kind}` }, { Cookie: await sessionCookie("admin", e) }),
        e,
      );
      expect(sent.status).toBe(303);
    }
    const messages = (await sink.state()).messages;
    expect(messages.map((m) => m.kind).sort()).toEqual(["airtable", "sheets"]);
    expect(messages.find((m) => m.kind === "airtable")?.text).toContain("email: test@example.org");
  });

  it("refuses a test to a destination that is not set up", async () => {
    const e = await appEnv();
    const refused = await appFetch(
      adminPost(
        `/admin/forms/contact/destinations?_data=${encodeURIComponent("routes/admin.forms.$formId_.destinations")}`,
        { intent: "test:slack" },
        { Cookie: await sessionCookie("admin", e) },
      ),
      e,
    );
    expect(refused.status).toBe(400);
    expect(await countRows("submissions")).toBe(0);
  });
});

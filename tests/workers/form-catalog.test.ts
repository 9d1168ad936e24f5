import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { FRESH_MS, STALE_BOUND_MS, forgetFormCatalog, loadFormCatalog } from "~/lib/forms/catalog.server";
import { insertFormStatement, MAX_CONSOLE_FORMS, publishStatements } from "~/lib/storage/forms.server";
import { expectConsoleErrors } from "../support/fail-on-console";
import { appFetch, countingDb } from "./helpers";
import { api, consoleEnv, resetConsoleForms, sampleDefinition } from "./console-helpers";

// The isolate's form catalog and its staleness bound (docs/decisions/045), on an injected clock: a
// publish made elsewhere (written straight to D1 here, as another isolate would) is served within
// STALE_BOUND_MS, a fresh catalog costs no round trip, and a stale one is refreshed after the answer.

const T0 = 1_800_000_000_000;

async function publish(id: string, version: number, title: string) {
  const definition = JSON.stringify({ ...sampleDefinition({ title }), id });
  const statements = publishStatements(env.DB, { id, version, definition, actor: "test", nowMs: T0 });
  await env.DB.batch(version === 1 ? [insertFormStatement(env.DB, id, definition, T0), ...statements] : statements);
}

async function load(nowMs: number, withWaitUntil = false) {
  const counted = countingDb(env.DB);
  const later: Promise<unknown>[] = [];
  const catalog = await loadFormCatalog({
    db: counted.db,
    encryptionKeys: [],
    nowMs,
    waitUntil: withWaitUntil ? (promise) => later.push(promise) : undefined,
  });
  return { catalog, trips: counted.trips(), later, title: catalog.forms.get("stale")?.form.title ?? null };
}

beforeEach(async () => {
  await env.DB.batch(["form_versions", "forms", "form_settings"].map((t) => env.DB.prepare(`DELETE FROM ${t}`)));
  forgetFormCatalog();
});

describe("the form catalog's staleness bound", () => {
  it("serves a fresh catalog with no round trip and sees another isolate's publish within the bound", async () => {
    expect(STALE_BOUND_MS).toBeGreaterThan(FRESH_MS);
    await publish("stale", 1, "First");
    expect(await load(T0)).toMatchObject({ title: "First", trips: 1 });
    await publish("stale", 2, "Second");

    // Fresh: no round trip, the version this isolate read.
    expect(await load(T0 + FRESH_MS - 1)).toMatchObject({ title: "First", trips: 0 });
    // Stale but within the bound, with a request to hang the read on: answered at once (D1 already holds
    // "Second"), read afterwards.
    const stale = await load(T0 + FRESH_MS, true);
    expect(stale).toMatchObject({ title: "First", trips: 0 });
    expect(stale.later).toHaveLength(1);
    await Promise.all(stale.later);
    expect(await load(T0 + FRESH_MS + 1)).toMatchObject({ title: "Second", trips: 0 });
  });

  it("reads D1 before answering once the catalog is as old as the bound, even with a request to hang a read on", async () => {
    await publish("stale", 1, "First");
    await load(T0);
    await publish("stale", 2, "Second");
    const before = await load(T0 + STALE_BOUND_MS - 1, true);
    expect(before).toMatchObject({ title: "First", trips: 0 });
    const bound = await load(T0 + STALE_BOUND_MS, true);
    expect(bound).toMatchObject({ title: "Second", trips: 1 });
    expect(bound.later).toEqual([]);
    await Promise.all(before.later);
  });

  it("starts one background read at a time", async () => {
    await publish("stale", 1, "First");
    await load(T0);
    const first = await load(T0 + FRESH_MS, true);
    const second = await load(T0 + FRESH_MS + 5, true);
    expect([first.later.length, second.later.length]).toEqual([1, 0]);
    await Promise.all(first.later);
  });

  it("forgets at once in the isolate that changed a form", async () => {
    await publish("stale", 1, "First");
    await load(T0);
    await publish("stale", 2, "Second");
    forgetFormCatalog();
    expect(await load(T0 + 1)).toMatchObject({ title: "Second", trips: 1 });
  });

  it("keeps serving the files' forms and the last catalog when D1 cannot be read, and says it is incomplete", async () => {
    await publish("stale", 1, "First");
    await load(T0);
    const logged = expectConsoleErrors(/form catalog could not be read from D1/);
    const broken = {
      batch: () => Promise.reject(new Error("D1_ERROR: database is busy")),
      prepare: env.DB.prepare.bind(env.DB),
    } as unknown as D1Database;
    const catalog = await loadFormCatalog({ db: broken, encryptionKeys: [], nowMs: T0 + STALE_BOUND_MS });
    expect(catalog.incomplete).toBe(true);
    expect(catalog.forms.get("stale")?.form.title).toBe("First");
    expect(catalog.forms.has("contact")).toBe(true);
    forgetFormCatalog();
    const cold = await loadFormCatalog({ db: broken, encryptionKeys: [], nowMs: T0 + STALE_BOUND_MS });
    expect([cold.incomplete, cold.forms.has("contact"), cold.forms.has("stale")]).toEqual([true, true, false]);
    expect(logged()).toHaveLength(2);
  });

  it("never serves a stored definition that fails the definition check", async () => {
    const logged = expectConsoleErrors(/console form broken version 1 fails the definition check/);
    const bad = JSON.stringify({
      ...sampleDefinition(),
      id: "broken",
      // Lookahead: no engine rule, of today or of ADR 044, ever let it be published.
      fields: [{ name: "x", type: "text", label: "X", hint: "x", pattern: "(?=a)a" }],
    });
    await env.DB.batch([
      insertFormStatement(env.DB, "broken", bad, T0),
      ...publishStatements(env.DB, { id: "broken", version: 1, definition: bad, actor: "test", nowMs: T0 }),
    ]);
    const { catalog } = await load(T0);
    expect(catalog.forms.has("broken")).toBe(false);
    expect(logged()).toHaveLength(1);
  });
});

describe("the console's form cap", () => {
  it("serves, lists and retains every one of 200 console forms, and refuses the 201st at create with form_limit_reached", async () => {
    expect(MAX_CONSOLE_FORMS).toBe(200);
    // The Worker's own catalog (another module instance than this file's) forgets what it had.
    await resetConsoleForms();
    // 200 published forms, written as publishes would write them, in one batch.
    const ids = Array.from({ length: MAX_CONSOLE_FORMS }, (_, i) => `capped-${String(i).padStart(3, "0")}`);
    await env.DB.batch(
      ids.flatMap((id) => {
        const definition = JSON.stringify({ ...sampleDefinition({ title: `Form ${id}` }), id });
        return [
          insertFormStatement(env.DB, id, definition, T0),
          ...publishStatements(env.DB, { id, version: 1, definition, actor: "test", nowMs: T0 }),
        ];
      }),
    );
    // Served: the catalog (which the pages, the accept path and retention read) holds every one.
    const { catalog } = await load(T0);
    expect(ids.every((id) => catalog.forms.get(id)?.source === "console")).toBe(true);
    const last = await appFetch(new Request(`http://localhost/f/${ids.at(-1)}`), consoleEnv());
    expect(last.status).toBe(200);
    expect(await last.text()).toContain(`Form ${ids.at(-1)}`);
    // Listed: the admin API (and the console's list, from the same function) names every one.
    const listed = (await (await api("GET", "/admin/api/forms")).json()) as { forms: { id: string; source: string }[] };
    expect(listed.forms.filter((f) => f.source === "console").map((f) => f.id)).toEqual(ids);
    // The one past the cap is refused, whole: no row, no audit.
    await env.DB.prepare("DELETE FROM audit_log").run();
    const refused = await api("PUT", "/admin/api/forms/one-too-many", { body: sampleDefinition() });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { code: string }).code).toBe("form_limit_reached");
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM forms").first("n")).toBe(MAX_CONSOLE_FORMS);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM audit_log").first("n")).toBe(0);
    // Editing a form at the cap still works: the cap counts forms, not drafts.
    expect((await api("PUT", `/admin/api/forms/${ids[0]}`, { body: sampleDefinition({ title: "Edited" }) })).status).toBe(200);
  });
});

describe("a version published before the shared pattern language", () => {
  it("is still served and checked with RE2, and its schema.json leaves the pattern out with the reason", async () => {
    await resetConsoleForms();
    // Written as a publish under ADR 044 would have: \S+ passed then, and is outside the language now.
    const definition = sampleDefinition();
    (definition.fields as Array<Record<string, unknown>>)[0].pattern = "\\S+";
    const json = JSON.stringify({ ...definition, id: "legacy" });
    await env.DB.batch([
      insertFormStatement(env.DB, "legacy", json, T0),
      ...publishStatements(env.DB, { id: "legacy", version: 1, definition: json, actor: "test", nowMs: T0 }),
    ]);
    expect((await appFetch(new Request("http://localhost/f/legacy"), consoleEnv())).status).toBe(200);
    const schema = (await (await appFetch(new Request("http://localhost/f/legacy/schema.json"), consoleEnv())).json()) as {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(schema.properties.name).not.toHaveProperty("pattern");
    expect(schema.properties.name.$comment).toMatch(
      /^Gatepost checks this field against a pattern that is not published here: it uses \\s or \\S/,
    );
    expect(schema.properties.email).not.toHaveProperty("$comment");
    // A new draft with it is refused, naming the shared language.
    const refused = await api("PUT", "/admin/api/forms/legacy", { body: definition });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { problems: string[] }).problems.join("\n")).toMatch(/uses \\s or \\S.*docs\/forms\.md#patterns/);
  });
});

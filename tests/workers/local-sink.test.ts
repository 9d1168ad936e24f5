import { beforeEach, describe, expect, it } from "vitest";
import { KIND_SPECS } from "~/lib/destinations/registry";
import { env } from "cloudflare:test";
import { parseSettings } from "~/lib/settings/settings.server";
import { adminEnv, adminPost, sessionCookie } from "./admin-helpers";
import { appFetch, clearTables, formPost, sink, standin, standinToken } from "./helpers";
import { API_TOKEN, ENCRYPTION_KEY, putAndPublish, resetConsoleForms, sampleDefinition } from "./console-helpers";

// The local loop for console forms (ADR 066): under `npm start` (LOCAL_SINK_URL and LOCAL_SINK_SECRET,
// with ALLOW_LOOPBACK_WEBHOOKS) a console form's unset destinations go to the local sink, a secret made
// in the console is told to the sink, which then verifies with it, and a delivery it refuses is listed
// with the reason. A form file's settings are `npm start`'s own, and without the switch none of it exists.

interface SinkState {
  requests: Array<{ kind: string; signatureValid: boolean; status: number }>;
  unique: Array<{ payload: { form: string; submission: { id: string } }; headers: Array<[string, string]> }>;
  messages: Array<{ kind: string; reference: string | null }>;
  refused: Array<{ title: string; headers: Array<[string, string]> }>;
}

async function sinkState(): Promise<SinkState> {
  return (await fetch(`${(await import("vitest")).inject("sinkControl")}/state`)).json();
}

async function localEnv(overrides: Partial<Record<string, string>> = {}): Promise<Env> {
  // npm start hands the Worker the key its Google Sheets stand-in trusts (scripts/start.mjs).
  const { sheetsKey } = (await sinkState()) as unknown as { sheetsKey: string };
  return adminEnv({
    ADMIN_API_TOKEN: API_TOKEN,
    SETTINGS_ENCRYPTION_KEY: ENCRYPTION_KEY,
    ALLOW_LOOPBACK_WEBHOOKS: "true",
    LOCAL_SINK_URL: new URL(sink.url()).origin,
    LOCAL_SINK_SECRET: sink.secret(),
    LOCAL_SINK_SHEETS_KEY: sheetsKey,
    EMAIL_FROM: "gatepost@localhost",
    ...overrides,
  });
}

async function destinations(formId: string, fields: Record<string, string>, e: Env) {
  const route = encodeURIComponent("routes/admin.forms.$formId_.destinations");
  return appFetch(adminPost(`/admin/forms/${formId}/destinations?_data=${route}`, fields, { Cookie: await sessionCookie("admin", e) }), e);
}

async function submit(formId: string, e: Env): Promise<string> {
  const fields = { name: "Ada", email: "ada@example.org", rating: "good", "cf-turnstile-response": standinToken({ action: formId }) };
  const response = await appFetch(formPost(`/f/${formId}`, fields), e);
  expect(response.status).toBe(303);
  return response.headers.get("location")!.split("/").pop()!;
}

async function deliveriesOf(id: string) {
  const { results } = await env.DB.prepare("SELECT destination, status FROM deliveries WHERE submission_id = ?1 ORDER BY destination")
    .bind(id)
    .all<{ destination: string; status: string }>();
  return results;
}

beforeEach(async () => {
  await standin.reset();
  await sink.reset();
  await clearTables();
  await resetConsoleForms();
});

describe("a console form under npm start", () => {
  it("is delivered to the local sink, every kind, without a setting touched, its webhook verified", async () => {
    const e = await localEnv();
    const definition = sampleDefinition();
    const destinations = [
      ...(definition.destinations as object[]),
      ...["sheets", "airtable", "telegram", "googlechat", "teams"].map((kind) => ({ kind })),
    ];
    await putAndPublish("lunch", { ...definition, destinations }, e);
    const id = await submit("lunch", e);
    expect(await deliveriesOf(id)).toEqual(
      ["airtable", "discord", "email", "googlechat", "sheets", "slack", "teams", "telegram", "webhook"].map((destination) => ({
        destination,
        status: "delivered",
      })),
    );
    const state = await sinkState();
    expect(state.unique.map((u) => [u.payload.form, u.payload.submission.id])).toEqual([["lunch", id]]);
    expect(state.requests.filter((r) => r.kind === "webhook").map((r) => r.signatureValid)).toEqual([true]);
    expect(
      state.messages
        .filter((m) => m.reference === id)
        .map((m) => m.kind)
        .sort(),
    ).toEqual(["airtable", "discord", "googlechat", "sheets", "slack", "teams", "telegram"]);
  });

  it("says so on its destinations page, where each may still be set elsewhere", async () => {
    const e = await localEnv();
    await putAndPublish("lunch", sampleDefinition(), e);
    const html = await (
      await appFetch(
        new Request("http://localhost/admin/forms/lunch/destinations", {
          headers: { Cookie: await sessionCookie("admin", e) },
        }),
        e,
      )
    ).text();
    const text = html.replace(/<!-- -->/g, "");
    expect(text).toContain(`Not set here, so under npm start it goes to the local sink: ${new URL(sink.url()).origin}/webhook.`);
    expect(text).toContain("Not set here, so under npm start the local sink&#x27;s own secret signs");
    expect(text).toContain("Send a test to the webhook");
    // Off: each setting the sink does not stand in for a console form (its kind's module says): the
    // confirmation (the sender's e-mail is opt-in, under npm start too), the e-mail provider's, Sheets' and Airtable's.
    const withoutStandin = KIND_SPECS.flatMap((spec) => spec.settings).filter((setting) => !setting.local);
    expect(withoutStandin.map((setting) => setting.suffix)).toContain("CONFIRMATION");
    expect(text.split("Not set: off.")).toHaveLength(withoutStandin.length + 1);
  });

  it("signs with a secret made in the console, which the sink learns and verifies with, rotated too", async () => {
    const e = await localEnv();
    await putAndPublish("lunch", sampleDefinition(), e);
    const made = (await (await destinations("lunch", { intent: "generate:WEBHOOK_SECRET" }, e)).json()) as { secret: string };
    expect(made.secret).toMatch(/^whsec_/);
    const first = await submit("lunch", e);
    const rotated = (await (await destinations("lunch", { intent: "generate:WEBHOOK_SECRET" }, e)).json()) as { secret: string };
    expect(rotated.secret).not.toBe(made.secret);
    await destinations("lunch", { intent: "retire:WEBHOOK_SECRET" }, e);
    const second = await submit("lunch", e);
    const state = await sinkState();
    expect(state.unique.map((u) => u.payload.submission.id)).toEqual([first, second]);
    expect(state.requests.filter((r) => r.kind === "webhook").map((r) => [r.signatureValid, r.status])).toEqual([
      [true, 200],
      [true, 200],
    ]);
    expect(state.refused).toEqual([]);
  });

  it("signs v1a with a key pair made in the console, beside the previous secret while it overlaps (ADR 120)", async () => {
    const e = await localEnv();
    await putAndPublish("lunch", sampleDefinition(), e);
    await destinations("lunch", { intent: "generate:WEBHOOK_SECRET" }, e);
    const made = (await (await destinations("lunch", { intent: "keypair:WEBHOOK_SECRET" }, e)).json()) as {
      secret: string;
      message: string;
    };
    // The console shows the public key only: the private key stays sealed.
    expect(made.secret).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect(made.message).toContain("private key stays sealed");
    const first = await submit("lunch", e);
    await destinations("lunch", { intent: "retire:WEBHOOK_SECRET" }, e);
    const second = await submit("lunch", e);
    const state = await sinkState();
    expect(state.unique.map((u) => u.payload.submission.id)).toEqual([first, second]);
    // The sink verified each (dev/verify-v1a.mjs on Node's crypto); both signatures ride one header during the overlap.
    expect(state.requests.filter((r) => r.kind === "webhook").map((r) => r.signatureValid)).toEqual([true, true]);
    const headerOf = (u: SinkState["unique"][number]) => Object.fromEntries(u.headers)["webhook-signature"] ?? "";
    const signatures = state.unique.map((u) =>
      headerOf(u)
        .split(" ")
        .map((part) => part.split(",")[0]),
    );
    expect(signatures).toEqual([["v1a", "v1"], ["v1a"]]);
    // And the public key the console showed verifies the signature here too, with nothing of Gatepost's.
    const publicKey = await crypto.subtle.importKey("raw", Buffer.from(made.secret.slice(5), "base64"), { name: "Ed25519" }, false, [
      "verify",
    ]);
    const headers = Object.fromEntries(state.unique[1]!.headers);
    const signed = new TextEncoder().encode(
      `${headers["webhook-id"]}.${headers["webhook-timestamp"]}.${JSON.stringify(state.unique[1]!.payload)}`,
    );
    const signature = Buffer.from(headers["webhook-signature"]!.slice(4), "base64");
    expect(await crypto.subtle.verify("Ed25519", publicKey, signature, signed)).toBe(true);
    expect(await crypto.subtle.verify("Ed25519", publicKey, signature, new TextEncoder().encode("tampered"))).toBe(false);
  });

  it("lists a delivery the sink refuses on its page, with the reason", async () => {
    // A secret made while the Worker knew no sink: the sink was never told it.
    await putAndPublish("lunch", sampleDefinition(), await localEnv());
    await destinations("lunch", { intent: "generate:WEBHOOK_SECRET" }, await localEnv({ LOCAL_SINK_URL: "", LOCAL_SINK_SECRET: "" }));
    const id = await submit("lunch", await localEnv());
    expect((await deliveriesOf(id)).find((d) => d.destination === "webhook")?.status).toBe("pending");
    const [refused] = (await sinkState()).refused;
    expect(refused.title).toBe("webhook refused with 401 (form lunch)");
    expect(Object.fromEntries(refused.headers).Why).toContain("does not verify with the sink's secret");
    const page = await (await fetch(new URL(sink.url()).origin)).text();
    expect(page).toContain("webhook refused with 401 (form lunch)");
    expect(page).not.toContain("Nothing yet");
  });
});

describe("what the local sink does not touch", () => {
  it("leaves a form file's unset destinations off: their settings are npm start's own", async () => {
    const e = await localEnv();
    const fields = { name: "Ada", email: "ada@example.org", message: "A form file, nothing set.", "cf-turnstile-response": standinToken() };
    const response = await appFetch(formPost("/f/contact", fields), e);
    expect(response.status).toBe(303);
    expect(await deliveriesOf(response.headers.get("location")!.split("/").pop()!)).toEqual([]);
  });

  it("does not exist without the local-dev switch or on a non-loopback origin", async () => {
    for (const overrides of [
      { ALLOW_LOOPBACK_WEBHOOKS: "" },
      { LOCAL_SINK_URL: "http://sink.example.org:8789" },
      { LOCAL_SINK_SECRET: "" },
    ]) {
      const e = await localEnv(overrides);
      const settings = parseSettings(e);
      expect(settings.localSink).toBeNull();
      expect(settings.problems.map((p) => p.variable)).toContain("LOCAL_SINK_URL");
      await putAndPublish("lunch", sampleDefinition(), e);
      expect(await deliveriesOf(await submit("lunch", e))).toEqual([]);
    }
  });
});

import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { appFetch, clearTables, sink, standin, testEnv } from "./helpers";
import { applyPost, clearBucket } from "./upload-helpers";
import { adminEnv, adminGet, sessionCookie } from "./admin-helpers";

// Issue #55 point 6 through the Worker: the apply form asks a portfolio of designers only. What the
// server drops for anyone else never reaches D1 nor the webhook (posted to the real local sink), and
// the console's submission page says which step each field was on and which condition applied.

beforeEach(async () => {
  await standin.reset();
  await sink.reset();
  await clearTables();
  await clearBucket();
});

const PORTFOLIO = "https://portfolio.example/ada";

function applyEnv(overrides: Partial<Record<string, string>> = {}): Env {
  return testEnv({ APPLY_WEBHOOK_URL: sink.url(), APPLY_WEBHOOK_SECRET: sink.secret(), ALLOW_LOOPBACK_WEBHOOKS: "true", ...overrides });
}

/** Posts the apply form as `role` (with a portfolio link either way), and the webhook payload the sink received. */
async function deliveredAs(role: string, appEnv: Env = applyEnv()) {
  const response = await appFetch(applyPost({ role, portfolio: PORTFOLIO }), appEnv);
  expect(response.status).toBe(303);
  const id = (response.headers.get("location") ?? "").split("/").pop()!;
  // The first attempt runs after the answer (waitUntil); the sink settles it within the test's bound.
  for (let i = 0; i < 50; i++) {
    const state = await sink.state();
    if (state.unique.length > 0) {
      const row = await env.DB.prepare("SELECT fields FROM submissions WHERE id = ?1").bind(id).first<{ fields: string }>();
      return { id, payload: state.unique[0]!.payload, stored: JSON.parse(row!.fields) as Record<string, unknown> };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the sink never received the webhook");
}

/** The submission's fields as the webhook carries them (docs/webhooks.md). */
function fieldsOf(payload: { submission?: { fields?: Record<string, unknown> } }) {
  return payload.submission?.fields ?? {};
}

describe("fields whose condition does not hold", () => {
  it("are neither stored nor delivered: a developer's portfolio link is dropped", async () => {
    const { payload, stored } = await deliveredAs("developer");
    expect(Object.keys(stored).sort()).toEqual(["cv", "email", "name", "role"]);
    expect(Object.keys(fieldsOf(payload)).sort()).toEqual(["cv", "email", "name", "role"]);
    expect(JSON.stringify(payload)).not.toContain(PORTFOLIO);
  });

  it("are stored and delivered when it holds: a designer's portfolio link arrives", async () => {
    const { payload, stored } = await deliveredAs("designer");
    expect(stored.portfolio).toBe(PORTFOLIO);
    expect(fieldsOf(payload).portfolio).toBe(PORTFOLIO);
  });
});

describe("the console's submission page", () => {
  /** The visible text of the page's field list, roughly. */
  async function fieldsText(id: string) {
    const appEnv = await adminEnv({ APPLY_WEBHOOK_URL: sink.url(), APPLY_WEBHOOK_SECRET: sink.secret(), ALLOW_LOOPBACK_WEBHOOKS: "true" });
    const html = await (await appFetch(adminGet(`/admin/submissions/${id}`, await sessionCookie("admin", appEnv)), appEnv)).text();
    const list = html.slice(html.indexOf("<h2>Fields</h2>"), html.indexOf("<h2>Verification</h2>"));
    return list
      .replace(/<!-- -->/g, "")
      .replace(/<[^>]+>/g, " ")
      .replace(/\s+/g, " ");
  }

  it("says each field's step and the condition it was shown under", async () => {
    const { id } = await deliveredAs("designer");
    const text = await fieldsText(id);
    expect(text).toContain("Your name Ada Lovelace Step 1, About you");
    expect(text).toContain(`Link to your portfolio ${PORTFOLIO} Step 1, About you — shown because The role is Design`);
    expect(text).toContain("Step 2, Your CV");
    expect(text).not.toContain("Not asked");
  });

  it("lists a field not asked as not asked, with its condition", async () => {
    const { id } = await deliveredAs("other");
    expect(await fieldsText(id)).toContain("Link to your portfolio Not asked Step 1, About you — only when The role is Design");
  });
});

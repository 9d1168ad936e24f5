import { env } from "cloudflare:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { beforeEach, describe, expect, it } from "vitest";
import { clearAdminTables, seedSubmission } from "./admin-helpers";
import { API_TOKEN, consoleEnv, makeApiToken } from "./console-helpers";
import { appFetch, sink, sinkEnv } from "./helpers";

// The MCP server at /admin/mcp (issue 53 point 4, ADR 124), driven by the official SDK's own client over
// Streamable HTTP, its fetch calling the Worker: tokens only, a viewer gets the reading tools, every call
// audited, refusals as tool errors carrying the catalogue's code.

beforeEach(async () => {
  await clearAdminTables();
  await env.DB.prepare("DELETE FROM admin_api_tokens").run();
  await sink.reset();
});

async function connect(token: string | null, appEnv: Env = consoleEnv()): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL("http://localhost/admin/mcp"), {
    fetch: (url, init) => appFetch(new Request(url, init), appEnv),
    requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
  });
  const client = new Client({ name: "gatepost-tests", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

function json(result: Awaited<ReturnType<Client["callTool"]>>): any {
  const [content] = result.content as Array<{ type: string; text: string }>;
  return JSON.parse(content.text);
}

async function auditActions() {
  const { results } = await env.DB.prepare("SELECT action, target, actor FROM audit_log WHERE action NOT LIKE 'token.%' ORDER BY id").all();
  return results as Array<{ action: string; target: string | null; actor: string }>;
}

describe("the MCP server through the SDK's client", () => {
  it("initialises statelessly with an admin token and lists every tool", async () => {
    const client = await connect(API_TOKEN);
    expect(client.getServerVersion()?.name).toBe("gatepost");
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["list_forms", "search_submissions", "get_submission", "redeliver_submission"]);
    await client.close();
  });

  it("refuses a request without a token with the API's 401, and gives a viewer only the reading tools", async () => {
    await expect(connect(null)).rejects.toThrow(/401/);
    const viewer = await connect(await makeApiToken("viewer"));
    expect((await viewer.listTools()).tools.map((tool) => tool.name)).toEqual(["list_forms", "search_submissions", "get_submission"]);
    const refused = await viewer.callTool({ name: "redeliver_submission", arguments: { id: "x" } });
    expect(refused.isError).toBe(true);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM audit_log WHERE action = 'submission.redeliver'").first("n")).toBe(0);
  });

  it("lists forms, searches with the list's filters page by page, reads one submission, all audited", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(await seedSubmission({ fields: { name: `n${i}`, email: "a@example.org", message: `hello ${i}` } }));
    const client = await connect(await makeApiToken("viewer"));
    const forms = json(await client.callTool({ name: "list_forms", arguments: {} }));
    expect(forms.forms.map((form: { id: string }) => form.id)).toContain("contact");

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = json(
        await client.callTool({ name: "search_submissions", arguments: { form: "contact", limit: 2, ...(cursor ? { cursor } : {}) } }),
      );
      seen.push(...page.items.map((item: { id: string }) => item.id));
      cursor = page.cursor ?? undefined;
    } while (cursor);
    expect(seen.sort()).toEqual([...ids].sort());

    const one = json(await client.callTool({ name: "get_submission", arguments: { id: ids[0] } }));
    expect(one).toMatchObject({ id: ids[0], form: "contact", fields: { name: "n0" } });
    const missing = await client.callTool({ name: "get_submission", arguments: { id: "no-such-submission" } });
    expect(missing.isError).toBe(true);
    expect(missing._meta).toMatchObject({ "gatepost/code": "not_found", "gatepost/status": 404 });
    expect((missing.content as Array<{ text: string }>)[0].text).toMatch(/^not_found: /);

    const bad = await client.callTool({ name: "search_submissions", arguments: { cursor: "junk" } });
    expect(bad._meta).toMatchObject({ "gatepost/code": "admin_bad_request" });

    const actions = (await auditActions()).map((row) => row.action);
    expect(actions).toEqual([
      "mcp.list_forms",
      "mcp.search_submissions",
      "mcp.search_submissions",
      "mcp.search_submissions",
      "mcp.get_submission",
      "mcp.get_submission",
    ]);
    expect((await auditActions()).every((row) => row.actor.startsWith("token:"))).toBe(true);
  });

  it("redelivers for an admin (audited), and refuses an unknown submission with its catalogue code", async () => {
    const id = await seedSubmission({
      fields: { name: "Ada", email: "a@example.org", message: "again" },
      deliveries: [{ destination: "webhook", status: "dead" }],
    });
    const appEnv = { ...sinkEnv(), ADMIN_API_TOKEN: API_TOKEN } as Env;
    const client = await connect(API_TOKEN, appEnv);
    const done = json(await client.callTool({ name: "redeliver_submission", arguments: { id } }));
    expect(done).toEqual({ id, requeued: 1, keptConfirmations: 0 });
    const unknown = await client.callTool({ name: "redeliver_submission", arguments: { id: "nope" } });
    expect(unknown._meta).toMatchObject({ "gatepost/code": "redelivery_unknown_submission", "gatepost/status": 404 });
    expect((await auditActions()).map((row) => [row.action, row.target])).toEqual([
      ["submission.redeliver", id],
      ["submission.redeliver", "nope"],
    ]);
  });
});

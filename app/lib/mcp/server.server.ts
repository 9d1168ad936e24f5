import type { AppLoadContext } from "@remix-run/cloudflare";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { apiRefusal, asProblem, requireApiUser } from "~/lib/auth/api-auth.server";
import { bearerToken } from "~/lib/auth/bearer-tokens.server";
import { registerTools } from "~/lib/mcp/tools.server";

// The MCP server at /admin/mcp (ADR 124): the official SDK's McpServer over its Web-standard Streamable
// HTTP transport, stateless (a new server and transport per request, no session id) with JSON answers
// rather than SSE, so one request is one Worker invocation. The admin API's bearer tokens authorise it;
// without one, the answer is the API's 401. JSON Schema checks use @cfworker/json-schema: the SDK's
// default (Ajv) compiles code with new Function, which Workers forbid.

export const MCP_SERVER_INFO = { name: "gatepost", version: "1.0.0" } as const;

/** Answers one MCP request (POST; GET and DELETE get the transport's 405). Refusals are problem+json. */
export async function handleMcpRequest(request: Request, context: AppLoadContext): Promise<Response> {
  try {
    // Tokens only: an assistant is a script, and a cookie is ambient (docs/api.md#mcp).
    if (bearerToken(request) === null) throw apiRefusal("admin_unauthenticated");
    const user = await requireApiUser(request, context, "read");
    const server = new McpServer(MCP_SERVER_INFO, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
    registerTools(server, { context, user, request });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    response.headers.set("Cache-Control", "private, no-store");
    return response;
  } catch (error) {
    return asProblem(error);
  }
}

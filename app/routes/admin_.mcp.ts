import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { consoleRoute } from "~/lib/console/route.server";
import { handleMcpRequest } from "~/lib/mcp/server.server";

// /admin/mcp — the MCP server for assistants (docs/api.md#mcp): POST carries JSON-RPC; GET and DELETE are
// answered by the stateless transport (no stream, no session).

export const loader = consoleRoute(({ request, context }: LoaderFunctionArgs) => handleMcpRequest(request, context));
export const action = consoleRoute(({ request, context }: ActionFunctionArgs) => handleMcpRequest(request, context));

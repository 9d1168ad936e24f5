import type { AppLoadContext } from "@remix-run/cloudflare";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { actionContext, requeueOne } from "~/lib/submissions/actions.server";
import { detailJson, pageJson, readApiListQuery } from "~/lib/submissions/api.server";
import type { AdminUser } from "~/lib/auth/admin-user.server";
import { listForms } from "~/lib/form-editor/lifecycle.server";
import { formCatalog } from "~/lib/forms/live.server";
import { ERROR_CODE_HEADER } from "~/lib/http/responses.server";
import { ERRORS, isErrorCode, type ErrorCode } from "~/lib/http/errors";
import { auditStatement } from "~/lib/storage/audit-log.server";
import { loadSubmissionDetail } from "~/lib/storage/console-queries.server";
import { listSubmissionPage } from "~/lib/storage/submission-list.server";
import { FILTER_STATES } from "~/lib/storage/submission-states";

// The MCP server's tools (docs/api.md#mcp): the admin API's reads and its redeliver, with the same
// checks, shapes and audit. A viewer's server has only the reading tools; a refusal is a tool error
// whose text starts with the catalogue's code, and carries it in _meta["gatepost/code"].

export interface ToolContext {
  context: AppLoadContext;
  user: AdminUser;
  request: Request;
}

/** A refusal from the catalogue as a tool error. */
export function refusalResult(code: ErrorCode): CallToolResult {
  const { status, message } = ERRORS[code];
  return {
    isError: true,
    content: [{ type: "text", text: `${code}: ${message}` }],
    _meta: { "gatepost/code": code, "gatepost/status": status },
  };
}

function jsonResult(value: unknown): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> };
}

/** Runs one tool: the refusals the API's helpers throw (problem Responses) become tool errors; bugs throw. */
async function answer(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    const code = error instanceof Response ? error.headers.get(ERROR_CODE_HEADER) : null;
    if (isErrorCode(code)) return refusalResult(code);
    throw error;
  }
}

/** Writes the call's audit row, as the API's writes are (reads too: an assistant reads in bulk). */
function audit({ context, user, request }: ToolContext, tool: string, target: string | null, detail?: Record<string, unknown>) {
  const db = context.cloudflare.env.DB;
  return auditStatement(db, { user, request, action: `mcp.${tool}`, target, detail, nowMs: context.now() }).run();
}

const SearchShape = {
  form: z.string().max(64).optional().describe("A form id (list_forms gives them)."),
  status: z.enum(FILTER_STATES).optional().describe("The console list's state filter."),
  from: z.string().max(40).optional().describe("Received at or after this ISO 8601 date or time."),
  to: z.string().max(40).optional().describe("Received before this ISO 8601 date or time."),
  q: z.string().max(200).optional().describe("Words to search the fields for."),
  cursor: z.string().max(400).optional().describe("The cursor of the previous page, for the next one."),
  limit: z.number().int().min(1).max(100).optional().describe("At most this many (default 25)."),
};

/** Registers the tools `user`'s role may use on `server`. */
export function registerTools(server: McpServer, tool: ToolContext): void {
  const db = tool.context.cloudflare.env.DB;
  server.registerTool("list_forms", { description: "Every form with its versions.", annotations: { readOnlyHint: true } }, () =>
    answer(async () => {
      const forms = await listForms(db, await formCatalog(tool.context));
      await audit(tool, "list_forms", null);
      return jsonResult({ forms });
    }),
  );
  server.registerTool(
    "search_submissions",
    {
      description: "Submissions newest first, filtered as the console's list is; pass `cursor` back for the next page.",
      inputSchema: SearchShape,
      annotations: { readOnlyHint: true },
    },
    (args) =>
      answer(async () => {
        const values = Object.fromEntries(
          Object.entries(args).flatMap(([key, value]) => (value === undefined ? [] : [[key, String(value)]])),
        );
        const { filter, cursor, limit } = readApiListQuery(values);
        const page = await listSubmissionPage(db, filter, cursor, limit);
        await audit(tool, "search_submissions", filter.form ?? null, { ...filter, q: filter.q ? "(words)" : undefined });
        return jsonResult(pageJson(page));
      }),
  );
  server.registerTool(
    "get_submission",
    {
      description: "One submission: fields, state, verification, files and each delivery.",
      inputSchema: { id: z.string().max(64) },
      annotations: { readOnlyHint: true },
    },
    ({ id }) =>
      answer(async () => {
        const detail = await loadSubmissionDetail(db, id);
        await audit(tool, "get_submission", id, { found: detail !== null });
        return detail ? jsonResult(detailJson(detail)) : refusalResult("not_found");
      }),
  );
  if (tool.user.role !== "admin") return;
  server.registerTool(
    "redeliver_submission",
    {
      description: "Queues every delivery of one submission again (same webhook-ids) and tries them at once.",
      inputSchema: { id: z.string().max(64) },
      annotations: { destructiveHint: false, idempotentHint: false },
    },
    ({ id }) =>
      answer(async () => {
        // requeueOne writes the call's audit row (submission.redeliver), whether it queued anything or not.
        const result = await requeueOne(actionContext(tool.context, tool.user, tool.request), id);
        return result.ok
          ? jsonResult({ id, requeued: result.requeued, keptConfirmations: result.keptConfirmations })
          : refusalResult(result.code);
      }),
  );
}

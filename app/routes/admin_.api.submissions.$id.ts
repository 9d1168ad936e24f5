import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { consoleRoute } from "~/lib/console/route.server";
import { actionContext, deleteSubmission } from "~/lib/submissions/actions.server";
import { apiRefusal, asProblem, requireApiUser } from "~/lib/auth/api-auth.server";
import { detailJson } from "~/lib/submissions/api.server";
import { TokenSchema } from "~/lib/console/input.server";
import { loadSubmissionDetail } from "~/lib/storage/console-queries.server";

// GET /admin/api/submissions/:id — its fields, state, form version, files and deliveries.
// DELETE /admin/api/submissions/:id — the console's delete (files, deliveries, audit row): 204.

const NO_STORE = { "Cache-Control": "private, no-store" };

function submissionIdOf(value: string | undefined): string {
  const parsed = TokenSchema.safeParse(value);
  if (!parsed.success) throw apiRefusal("not_found");
  return parsed.data;
}

export const loader = consoleRoute(async ({ request, params, context }: LoaderFunctionArgs) => {
  try {
    await requireApiUser(request, context, "read");
    const detail = await loadSubmissionDetail(context.cloudflare.env.DB, submissionIdOf(params.id));
    if (!detail) throw apiRefusal("not_found");
    return Response.json(detailJson(detail), { headers: NO_STORE });
  } catch (error) {
    return asProblem(error);
  }
});

export const action = consoleRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  try {
    const user = await requireApiUser(request, context, "write");
    if (request.method !== "DELETE") throw apiRefusal("method_not_allowed");
    const id = submissionIdOf(params.id);
    const result = await deleteSubmission(actionContext(context, user, request), id);
    if (!result.ok) throw apiRefusal("not_found");
    return new Response(null, { status: 204, headers: NO_STORE });
  } catch (error) {
    return asProblem(error);
  }
});

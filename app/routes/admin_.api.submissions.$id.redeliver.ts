import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { consoleRoute } from "~/lib/console/route.server";
import { actionContext, requeueOne } from "~/lib/submissions/actions.server";
import { apiRefusal, asProblem, refuseMethod, requireApiUser } from "~/lib/auth/api-auth.server";
import { TokenSchema } from "~/lib/console/input.server";

// POST /admin/api/submissions/:id/redeliver — the console's redeliver: its deliveries queued again
// (same webhook-ids) and tried after the response; audited whether it queued anything or was refused.

export const loader = consoleRoute(({ request, context }: LoaderFunctionArgs) => refuseMethod(request, context));

export const action = consoleRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  try {
    const user = await requireApiUser(request, context, "write");
    if (request.method !== "POST") throw apiRefusal("method_not_allowed");
    const id = TokenSchema.safeParse(params.id);
    if (!id.success) throw apiRefusal("redelivery_unknown_submission");
    const result = await requeueOne(actionContext(context, user, request), id.data);
    if (!result.ok) throw apiRefusal(result.code);
    return Response.json(
      { id: id.data, requeued: result.requeued, keptConfirmations: result.keptConfirmations },
      { status: 202, headers: { "Cache-Control": "private, no-store" } },
    );
  } catch (error) {
    return asProblem(error);
  }
});

import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { consoleRoute } from "~/lib/console/route.server";
import { apiRefusal, asProblem, refuseMethod, requireApiUser } from "~/lib/auth/api-auth.server";
import { deleteHook } from "~/lib/hooks/api.server";

// DELETE /admin/api/hooks/:id — unsubscribe (204): no new deliveries, and queued ones settle as not sent.

export const loader = consoleRoute(({ request, context }: LoaderFunctionArgs) => refuseMethod(request, context, "write"));

export const action = consoleRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  try {
    const user = await requireApiUser(request, context, "write");
    if (request.method !== "DELETE") throw apiRefusal("method_not_allowed");
    const db = context.cloudflare.env.DB;
    const done = await deleteHook({ db, user, request, settings: context.settings, nowMs: context.now() }, params.id ?? "");
    if (!done.ok) throw apiRefusal(done.code);
    return new Response(null, { status: 204, headers: { "Cache-Control": "private, no-store" } });
  } catch (error) {
    return asProblem(error);
  }
});

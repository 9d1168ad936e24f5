import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { consoleRoute } from "~/lib/console/route.server";
import { apiRefusal, asProblem, refuseMethod, requireApiUser } from "~/lib/auth/api-auth.server";
import { removePerson } from "~/lib/people/people.server";

// DELETE /admin/api/people/:id — withdraw the invitation or remove the person (204): their sessions and
// API tokens end at once. The last admin cannot remove themselves (person_last_admin).

export const loader = consoleRoute(({ request, context }: LoaderFunctionArgs) => refuseMethod(request, context, "write"));

export const action = consoleRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  try {
    const user = await requireApiUser(request, context, "write");
    if (request.method !== "DELETE") throw apiRefusal("method_not_allowed");
    const db = context.cloudflare.env.DB;
    const done = await removePerson({ db, user, request, nowMs: context.now() }, (params.id ?? "").slice(0, 100));
    if (!done.ok) throw apiRefusal(done.code);
    return new Response(null, { status: 204, headers: { "Cache-Control": "private, no-store" } });
  } catch (error) {
    return asProblem(error);
  }
});

import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { redeliverDeadInBulk } from "~/lib/submissions/actions.server";
import { apiRefusal, asProblem, readJsonBody, refuseMethod, requireApiUser } from "~/lib/auth/api-auth.server";
import { BulkRedeliverySchema, deadFilterOf } from "~/lib/form-destinations/bulk-redelivery.server";
import { consoleRoute } from "~/lib/console/route.server";

// POST /admin/api/deliveries/redeliver — queues a form's dead deliveries again (optionally one
// destination's, created in [from, to)), in chunks within this request's budget; `remaining` says how
// many are still dead, so a caller posts again until it is 0 (docs/api.md).

export const loader = consoleRoute(({ request, context }: LoaderFunctionArgs) => refuseMethod(request, context));

export const action = consoleRoute(async ({ request, context }: ActionFunctionArgs) => {
  try {
    const user = await requireApiUser(request, context, "write");
    if (request.method !== "POST") throw apiRefusal("method_not_allowed");
    const parsed = BulkRedeliverySchema.safeParse(await readJsonBody(request));
    if (!parsed.success) throw apiRefusal("redelivery_invalid");
    const filter = deadFilterOf(parsed.data);
    const ctx = { env: context.cloudflare.env, settings: context.settings, user, request, now: context.now };
    const result = await redeliverDeadInBulk(ctx, filter);
    if (!result.ok) throw apiRefusal(result.code);
    const { formId, destination = null, from = null, to = null } = parsed.data;
    return Response.json(
      { formId, destination, from, to, requeued: result.requeued, remaining: result.remaining, done: result.remaining === 0 },
      { headers: { "Cache-Control": "no-store" } },
    );
  } catch (error) {
    return asProblem(error);
  }
});

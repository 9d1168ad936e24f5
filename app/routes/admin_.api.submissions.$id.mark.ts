import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { consoleRoute } from "~/lib/console/route.server";
import { apiRefusal, asProblem, readJsonBody, refuseMethod, requireApiUser } from "~/lib/auth/api-auth.server";
import { TokenSchema } from "~/lib/console/input.server";
import { readMarkLabel } from "~/lib/spam/marks.server";
import { markAsOwner } from "~/lib/spam/owner-marks.server";

// POST /admin/api/submissions/:id/mark {"as": "spam" | "ham"} — trains the spam filter (docs/api.md);
// spam also stops the submission's waiting deliveries. Audited; told to Akismet after the response.

export const loader = consoleRoute(({ request, context }: LoaderFunctionArgs) => refuseMethod(request, context, "write"));

export const action = consoleRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  try {
    const user = await requireApiUser(request, context, "write");
    if (request.method !== "POST") throw apiRefusal("method_not_allowed");
    const id = TokenSchema.safeParse(params.id);
    if (!id.success) throw apiRefusal("not_found");
    const label = readMarkLabel(await readJsonBody(request));
    if (!label) throw apiRefusal("spam_mark_invalid");
    const { env, ctx } = context.cloudflare;
    const outcome = await markAsOwner(
      { env, ctx, user, request, publicUrl: context.settings.publicUrl, now: context.now },
      [id.data],
      label,
    );
    if (!outcome.ok) throw apiRefusal(outcome.code);
    if (outcome.missing.length > 0) throw apiRefusal("not_found");
    return Response.json(
      { id: id.data, as: label, changed: outcome.changed.length > 0, stoppedDeliveries: outcome.stopped },
      { headers: { "Cache-Control": "private, no-store" } },
    );
  } catch (error) {
    return asProblem(error);
  }
});

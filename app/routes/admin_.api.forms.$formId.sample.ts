import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { consoleRoute } from "~/lib/console/route.server";
import { apiRefusal, asProblem, requireApiUser } from "~/lib/auth/api-auth.server";
import { catalogSettings, findForm } from "~/lib/forms/live.server";
import { sampleDeliveries } from "~/lib/hooks/sample.server";

// GET /admin/api/forms/:formId/sample — the newest submissions as a subscription receives them, an array
// newest first (docs/api.md#subscriptions): what a platform shows while a user sets a trigger up.

export const loader = consoleRoute(async ({ request, params, context }: LoaderFunctionArgs) => {
  try {
    await requireApiUser(request, context, "read");
    const found = await findForm(context, params.formId);
    if (!found.ok) throw apiRefusal(found.code);
    const settings = catalogSettings(context.settings, found.catalog);
    const sample = await sampleDeliveries(context.cloudflare.env.DB, settings, found.live.form, context.now());
    return Response.json(sample, { headers: { "Cache-Control": "private, no-store" } });
  } catch (error) {
    return asProblem(error);
  }
});

import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { consoleRoute } from "~/lib/console/route.server";
import { asProblem, requireApiUser } from "~/lib/auth/api-auth.server";
import { listForms } from "~/lib/form-editor/lifecycle.server";
import { formCatalog } from "~/lib/forms/live.server";

// GET /admin/api/forms — every form with its versions (docs/api.md). Tokens or the console's session.
export const loader = consoleRoute(async ({ request, context }: LoaderFunctionArgs) => {
  try {
    await requireApiUser(request, context, "read");
    const forms = await listForms(context.cloudflare.env.DB, await formCatalog(context));
    return Response.json({ forms }, { headers: { "Cache-Control": "private, no-store" } });
  } catch (error) {
    return asProblem(error);
  }
});

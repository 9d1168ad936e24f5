import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { consoleRoute } from "~/lib/console/route.server";
import { asProblem, refuseMethod, requireApiUser } from "~/lib/auth/api-auth.server";
import { pageJson, readApiListQuery } from "~/lib/submissions/api.server";
import { queryValues } from "~/lib/console/input.server";
import { listSubmissionPage } from "~/lib/storage/submission-list.server";

// GET /admin/api/submissions?form=&status=&from=&to=&q=&cursor=&limit= — newest first, a keyset page
// (docs/decisions/060, 086): {"items": [...], "cursor": "…"|null}; pass the cursor back for the next page.

export const loader = consoleRoute(async ({ request, context }: LoaderFunctionArgs) => {
  try {
    await requireApiUser(request, context, "read");
    const { filter, cursor, limit } = readApiListQuery(queryValues(request));
    const page = await listSubmissionPage(context.cloudflare.env.DB, filter, cursor, limit);
    return Response.json(pageJson(page), { headers: { "Cache-Control": "private, no-store" } });
  } catch (error) {
    return asProblem(error);
  }
});

export const action = consoleRoute(({ request, context }: ActionFunctionArgs) => refuseMethod(request, context, "write"));

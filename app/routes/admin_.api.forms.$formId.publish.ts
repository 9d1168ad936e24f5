import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { consoleRoute } from "~/lib/console/route.server";
import { apiRefusal, asProblem, readJsonBody, refuseMethod, requireApiUser } from "~/lib/auth/api-auth.server";
import { publishDraft } from "~/lib/form-editor/lifecycle.server";
import { TokenSchema } from "~/lib/console/input.server";

// POST /admin/api/forms/:formId/publish — publishes the draft as the next kept version. Renaming or
// removing fields that hold data needs {"confirmFieldNames": true}: webhook receivers depend on field
// names (docs/api.md). A body is optional.

export const loader = consoleRoute(({ request, context }: LoaderFunctionArgs) => refuseMethod(request, context));

export const action = consoleRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  try {
    const user = await requireApiUser(request, context, "write");
    if (request.method !== "POST") throw apiRefusal("method_not_allowed");
    const id = TokenSchema.safeParse(params.formId);
    if (!id.success) throw apiRefusal("form_not_found");
    const body = await readJsonBody(request, { optional: true });
    const confirmFieldNames =
      typeof body === "object" && body !== null && (body as { confirmFieldNames?: unknown }).confirmFieldNames === true;
    const ctx = { db: context.cloudflare.env.DB, settings: context.settings, user, request, nowMs: Date.now() };
    const published = await publishDraft(ctx, id.data, { confirmFieldNames });
    if (!published.ok) {
      const members = published.problems
        ? { problems: published.problems }
        : published.fieldsInUse
          ? { fields: published.fieldsInUse }
          : undefined;
      throw apiRefusal(published.code, members);
    }
    return Response.json(
      { id: id.data, version: published.version, changes: published.changes },
      { headers: { "Cache-Control": "no-store" } },
    );
  } catch (error) {
    return asProblem(error);
  }
});

import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { consoleRoute } from "~/lib/console/route.server";
import { apiRefusal, asProblem, readJsonBody, requireApiUser } from "~/lib/auth/api-auth.server";
import { findForm } from "~/lib/forms/live.server";
import { checkNewHook, createHook } from "~/lib/hooks/api.server";
import { listHooks } from "~/lib/hooks/subscriptions.server";

// GET /admin/api/hooks — the live subscriptions (?formId= for one form's); POST — subscribe a URL to a
// form's accepted submissions: 201 with its whsec_ secret, shown this once (docs/api.md#subscriptions).
// Admins only: a subscription sends submissions out, and its URL may carry the receiver's own token.

const NO_STORE = { "Cache-Control": "private, no-store" };

export const loader = consoleRoute(async ({ request, context }: LoaderFunctionArgs) => {
  try {
    await requireApiUser(request, context, "write");
    const formId = new URL(request.url).searchParams.get("formId");
    return Response.json({ hooks: await listHooks(context.cloudflare.env.DB, formId) }, { headers: NO_STORE });
  } catch (error) {
    return asProblem(error);
  }
});

export const action = consoleRoute(async ({ request, context }: ActionFunctionArgs) => {
  try {
    const user = await requireApiUser(request, context, "write");
    if (request.method !== "POST") throw apiRefusal("method_not_allowed");
    const checked = checkNewHook(await readJsonBody(request), context.settings.allowLoopbackHttp);
    if (!checked.ok) throw apiRefusal("hook_invalid", { problems: checked.problems });
    const found = await findForm(context, checked.hook.formId);
    if (!found.ok) throw apiRefusal(found.code);
    const db = context.cloudflare.env.DB;
    const made = await createHook({ db, user, request, settings: context.settings, nowMs: context.now() }, checked.hook);
    if (!made.ok) throw apiRefusal(made.code);
    const location = `/admin/api/hooks/${made.hook.id}`;
    return Response.json(made.hook, { status: 201, headers: { ...NO_STORE, Location: location } });
  } catch (error) {
    return asProblem(error);
  }
});

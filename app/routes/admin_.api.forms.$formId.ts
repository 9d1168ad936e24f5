import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { consoleRoute } from "~/lib/console/route.server";
import { apiRefusal, asProblem, readJsonBody, requireApiUser } from "~/lib/auth/api-auth.server";
import { loadConsoleForm, saveDraft } from "~/lib/form-editor/lifecycle.server";
import { TokenSchema } from "~/lib/console/input.server";
import { formCatalog } from "~/lib/forms/live.server";

// GET /admin/api/forms/:formId — one form: its live definition, its draft and versions.
// PUT /admin/api/forms/:formId — a JSON body in the form file's shape becomes the draft (the form is
// created when new); it must pass the whole definition check. Publishing is a separate POST (docs/api.md).

const NO_STORE = { "Cache-Control": "private, no-store" };

function formIdOf(value: string | undefined): string {
  const parsed = TokenSchema.safeParse(value);
  if (!parsed.success) throw apiRefusal("form_not_found");
  return parsed.data;
}

export const loader = consoleRoute(async ({ request, params, context }: LoaderFunctionArgs) => {
  try {
    await requireApiUser(request, context, "read");
    const id = formIdOf(params.formId);
    const catalog = await formCatalog(context);
    const live = catalog.forms.get(id);
    if (live?.source === "code") {
      return Response.json(
        { id, source: "code", version: live.version, published: live.form, draft: null, archived: false },
        { headers: NO_STORE },
      );
    }
    const state = await loadConsoleForm(context.cloudflare.env.DB, id);
    if (!state) throw apiRefusal("form_not_found");
    const version = state.row.published_version === null ? null : String(state.row.published_version);
    return Response.json(
      { id, source: "console", version, published: state.published, draft: state.draft, archived: state.row.archived_at !== null },
      { headers: NO_STORE },
    );
  } catch (error) {
    return asProblem(error);
  }
});

export const action = consoleRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  try {
    const user = await requireApiUser(request, context, "write");
    if (request.method !== "PUT") throw apiRefusal("method_not_allowed");
    const id = formIdOf(params.formId);
    const body = await readJsonBody(request);
    const bodyId = typeof body === "object" && body !== null ? (body as { id?: unknown }).id : undefined;
    if (bodyId !== undefined && bodyId !== id) {
      throw apiRefusal("form_definition_invalid", {
        problems: [`the body's id "${String(bodyId).slice(0, 60)}" is not the path's "${id}"`],
      });
    }
    const ctx = { db: context.cloudflare.env.DB, settings: context.settings, user, request, nowMs: Date.now() };
    const saved = await saveDraft(ctx, id, body, { strict: true });
    if (!saved.ok) throw apiRefusal(saved.code, saved.problems ? { problems: saved.problems } : undefined);
    return Response.json({ id, draft: true, created: saved.created }, { status: saved.created ? 201 : 200, headers: NO_STORE });
  } catch (error) {
    return asProblem(error);
  }
});

import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { consoleRoute } from "~/lib/console/route.server";
import { requireUser } from "~/lib/auth/admin-user.server";
import { formFileText } from "~/lib/form-editor/editor-post.server";
import { loadConsoleForm } from "~/lib/form-editor/lifecycle.server";
import { TokenSchema } from "~/lib/console/input.server";
import { formCatalog } from "~/lib/forms/live.server";
import { refusal } from "~/lib/http/responses.server";

// GET /admin/forms/:formId/export?format=ts|json — a form's definition to download: as a form file for
// app/forms/ (ts), or as JSON to import elsewhere (the published version, else the draft).
export const loader = consoleRoute(async ({ request, params, context }: LoaderFunctionArgs) => {
  await requireUser(request, context, "data");
  const id = TokenSchema.safeParse(params.formId);
  if (!id.success) throw refusal("form_not_found");
  const format = new URL(request.url).searchParams.get("format") === "json" ? "json" : "ts";
  const live = (await formCatalog(context)).forms.get(id.data);
  const state = live?.source === "code" ? null : await loadConsoleForm(context.cloudflare.env.DB, id.data);
  const form = live?.source === "code" ? live.form : (state?.published ?? state?.draft);
  if (!form) throw refusal("form_not_found");
  const body = format === "json" ? `${JSON.stringify(form, null, 2)}\n` : formFileText(form);
  return new Response(body, {
    headers: {
      "Content-Type": format === "json" ? "application/json; charset=utf-8" : "text/plain; charset=utf-8",
      "Content-Disposition": `attachment; filename="${id.data}.${format}"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
});

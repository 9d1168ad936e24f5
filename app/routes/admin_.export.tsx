import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { findForm } from "~/lib/forms/live.server";
import { auditExport } from "~/lib/admin/actions.server";
import { requireSameOriginRead, requireUser } from "~/lib/admin/auth.server";
import { ExportParamsSchema, loadExportRows, toCsv, toJson } from "~/lib/admin/export.server";
import { queryValues } from "~/lib/admin/input.server";
import { refusal } from "~/lib/http/responses.server";
import { consoleRoute } from "~/lib/admin/console-route.server";

// GET /admin/export?form=contact&from=YYYY-MM-DD&to=YYYY-MM-DD&format=csv|json — a file download.
// Data, not a page: without a session it answers 401 rather than redirecting. Viewers may export.
// It writes an audit row, so only the console's own pages may ask for it (Sec-Fetch-Site).
export const loader = consoleRoute(async ({ request, context }: LoaderFunctionArgs) => {
  requireSameOriginRead(request);
  const user = await requireUser(request, context, "data");
  const params = ExportParamsSchema.safeParse(queryValues(request));
  if (!params.success) throw refusal("admin_bad_request");
  const { from, to, format } = params.data;
  const found = await findForm(context, params.data.form);
  if (!found.ok) throw refusal(found.code);
  const form = found.live.form;
  const env = context.cloudflare.env;
  const { columns, rows } = await loadExportRows(env.DB, form, { from, to });
  await auditExport({ env, settings: context.settings, user, request, now: context.now }, form.id, {
    format,
    from: from ?? null,
    to: to ?? null,
    rows: rows.length,
  });
  const name = `gatepost-${form.id}-${from ?? "start"}-to-${to ?? "now"}.${format}`;
  return new Response(format === "csv" ? toCsv(columns, rows) : toJson(columns, rows), {
    headers: {
      "Content-Type": format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="${name}"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
});

import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { findForm } from "~/forms/registry";
import { auditExport } from "~/lib/admin/actions.server";
import { requireUser } from "~/lib/admin/auth.server";
import { parseListFilters } from "~/lib/admin/queries.server";
import { loadExportRows, toCsv, toJson } from "~/lib/admin/export.server";
import { refusal } from "~/lib/http/responses.server";

// GET /admin/export?form=contact&from=YYYY-MM-DD&to=YYYY-MM-DD&format=csv|json — a file download.
// Data, not a page: without a session it answers 401 rather than redirecting. Viewers may export.
export async function loader({ request, context }: LoaderFunctionArgs) {
  const env = context.cloudflare.env;
  const user = await requireUser(request, env, "data");
  const params = new URL(request.url).searchParams;
  const form = findForm(params.get("form") ?? undefined);
  if (!form) throw refusal("form_not_found");
  const { from, to } = parseListFilters(params);
  const format = params.get("format") === "json" ? "json" : "csv";
  const { columns, rows } = await loadExportRows(env.DB, form, { from, to });
  await auditExport({ env, settings: context.settings, user, request }, form.id, { format, from: from ?? null, to: to ?? null, rows: rows.length });
  const name = `gatepost-${form.id}-${from ?? "start"}-to-${to ?? "now"}.${format}`;
  return new Response(format === "csv" ? toCsv(columns, rows) : toJson(columns, rows), {
    headers: {
      "Content-Type": format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="${name}"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}

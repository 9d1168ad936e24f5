import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { formCatalog, findForm } from "~/lib/forms/live.server";
import { requireSameOriginRead, requireUser } from "~/lib/auth/admin-user.server";
import { ExportParamsSchema } from "~/lib/exports/params.server";
import { pendingExportResponse, startExport } from "~/lib/exports/console.server";
import { exportQueueOf, sendExportStep } from "~/lib/exports/queue.server";
import { queryValues } from "~/lib/console/input.server";
import { refusal } from "~/lib/http/responses.server";
import { consoleRoute } from "~/lib/console/route.server";
import { uploadsBucket } from "~/lib/storage/file-objects.server";

// GET /admin/export?form=contact&from=YYYY-MM-DD&to=YYYY-MM-DD&format=csv|json (form blank: every
// form) — starts an export job (docs/decisions/085, 109) and hands it to the export queue; a browser goes
// to the job's page, a script gets 202 with its address to poll. Data, not a page: without a session it
// answers 401. Viewers may export, a few jobs at a time. It writes an audit row, so only the console's
// own pages may ask (Sec-Fetch-Site).
export const loader = consoleRoute(async ({ request, context }: LoaderFunctionArgs) => {
  requireSameOriginRead(request);
  const user = await requireUser(request, context, "data");
  const params = ExportParamsSchema.safeParse(queryValues(request));
  if (!params.success) throw refusal("admin_bad_request");
  const { form: formId, from, to, format } = params.data;
  const env = context.cloudflare.env;
  const bucket = uploadsBucket(env);
  if (!bucket) throw refusal("export_storage_missing");
  let defined: string[];
  if (formId) {
    const found = await findForm(context, formId);
    if (!found.ok) throw refusal(found.code);
    defined = found.live.form.fields.map((f) => f.name);
  } else {
    const names = [...(await formCatalog(context)).forms.values()].flatMap((live) => live.form.fields.map((f) => f.name));
    defined = [...new Set(names)];
  }
  const nowMs = context.now();
  const job = await startExport({ db: env.DB, user, request, nowMs }, { formId: formId ?? null, from, to, format }, defined);
  if (!job) throw refusal("export_jobs_limit");
  // Refused or unbound, the cron carries the job on instead (docs/decisions/109).
  await sendExportStep(exportQueueOf(env), job.id);
  return pendingExportResponse(job, request, nowMs);
});

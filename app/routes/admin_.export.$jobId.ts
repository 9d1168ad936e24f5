import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireSameOriginRead, requireUser } from "~/lib/admin/auth.server";
import { exportFileResponse, pendingExportResponse, requestBudget } from "~/lib/admin/exports.server";
import { exportLimits, workOnExport } from "~/lib/exports/run.server";
import { TokenSchema } from "~/lib/admin/input.server";
import { refusal } from "~/lib/http/responses.server";
import { consoleRoute } from "~/lib/admin/console-route.server";
import { findExportJob } from "~/lib/storage/export-jobs.server";
import { uploadsBucket } from "~/lib/storage/file-objects.server";

// GET /admin/export/:jobId — the export job GET /admin/export started: each poll works on it within its
// own budget and answers 202 (with Location and Retry-After) until the file is ready, then the file.
// Only the person who asked may poll or download it (docs/decisions/085).
export const loader = consoleRoute(async ({ request, params, context }: LoaderFunctionArgs) => {
  requireSameOriginRead(request);
  const user = await requireUser(request, context, "data");
  const env = context.cloudflare.env;
  const bucket = uploadsBucket(env);
  if (!bucket) throw refusal("export_storage_missing");
  const id = TokenSchema.safeParse(params.jobId);
  const found = id.success ? await findExportJob(env.DB, id.data) : null;
  // Someone else's job is as good as none: its id says nothing to another user.
  if (!found || found.requestedBy !== user.id) throw refusal("not_found");
  const { plan } = context.settings;
  const job = (await workOnExport({ db: env.DB, bucket }, found.id, requestBudget(plan), context.now(), exportLimits(plan))) ?? found;
  if (job.state.phase === "ready") return (await exportFileResponse(bucket, job)) ?? refusal("export_expired");
  return pendingExportResponse(job, request);
});

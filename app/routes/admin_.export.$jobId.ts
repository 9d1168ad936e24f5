import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireSameOriginRead, requireUser } from "~/lib/auth/admin-user.server";
import { exportFileResponse, findOwnExport, pendingExportResponse } from "~/lib/exports/console.server";
import { refusal } from "~/lib/http/responses.server";
import { consoleRoute } from "~/lib/console/route.server";
import { uploadsBucket } from "~/lib/storage/file-objects.server";

// GET /admin/export/:jobId — the export job GET /admin/export started, read and never worked on (the
// export queue and the cron do that, docs/decisions/109): 202 with its progress until the file is ready
// (a browser: its page in the console), then the file. Only the session or token that asked may read it.
export const loader = consoleRoute(async ({ request, params, context }: LoaderFunctionArgs) => {
  requireSameOriginRead(request);
  const user = await requireUser(request, context, "data");
  const env = context.cloudflare.env;
  const bucket = uploadsBucket(env);
  if (!bucket) throw refusal("export_storage_missing");
  const job = await findOwnExport(env.DB, user, params.jobId);
  if (!job) throw refusal("not_found");
  if (job.state.phase === "ready") return (await exportFileResponse(bucket, job)) ?? refusal("export_expired");
  return pendingExportResponse(job, request, context.now());
});

import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/lib/auth/admin-user.server";
import { consoleRoute } from "~/lib/console/route.server";
import { TokenSchema } from "~/lib/console/input.server";
import { uploadsBucket } from "~/lib/storage/file-objects.server";
import { answerAsDownload, downloadFile, downloadRefusal, refuseDownloadMethod } from "~/lib/uploads/download.server";

// GET /admin/files/:submissionId/:fileId — an uploaded file for a signed-in console user (any role:
// a viewer reads submissions too). Always an attachment (app/lib/uploads/download.server.ts). Data,
// not a page: without a session it answers 401 rather than redirecting.
// Every answer here, refusals included (no session, storage down), carries the download headers (ADR 051).
const download = consoleRoute(async ({ request, params, context }: LoaderFunctionArgs) => {
  await requireUser(request, context, "data");
  const submissionId = TokenSchema.safeParse(params.submissionId);
  const fileId = TokenSchema.safeParse(params.fileId);
  if (!submissionId.success || !fileId.success) return downloadRefusal("not_found");
  const env = context.cloudflare.env;
  return downloadFile(env.DB, uploadsBucket(env), submissionId.data, fileId.data);
});
export const loader = (args: LoaderFunctionArgs) => answerAsDownload(() => download(args));
export const action = refuseDownloadMethod;

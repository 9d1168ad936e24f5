import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/lib/auth/admin-user.server";
import { consoleRoute } from "~/lib/console/route.server";
import { TokenSchema } from "~/lib/console/input.server";
import { uploadsBucket } from "~/lib/storage/file-objects.server";
import { answerAsDownload, downloadFile, downloadRefusal, refuseDownloadMethod } from "~/lib/uploads/download.server";

// GET /admin/files/:submissionId/:fileId for any signed-in role: data, not a page (401 without a session), and
// every answer, refusals included, carries the download headers (ADR 051).
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

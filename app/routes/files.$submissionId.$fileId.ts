import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { uploadsBucket } from "~/lib/storage/file-objects.server";
import { answerAsDownload, downloadFile, downloadRefusal, refuseDownloadMethod } from "~/lib/uploads/download.server";
import { verifyFileLink } from "~/lib/uploads/file-links.server";

// GET /files/:submissionId/:fileId?expires=…&signature=… — an uploaded file through the signed,
// expiring link a notification carried (app/lib/uploads/file-links.server.ts). A link that is not
// ours answers as if there were nothing here; one past its time says it expired.
// Every answer here, refusals included, carries the download headers (ADR 051).
export const loader = (args: LoaderFunctionArgs) => answerAsDownload(() => download(args));
export const action = refuseDownloadMethod;

async function download({ request, params, context }: LoaderFunctionArgs) {
  const query = new URL(request.url).searchParams;
  const submissionId = params.submissionId ?? "";
  const fileId = params.fileId ?? "";
  const verdict = await verifyFileLink({
    secrets: context.settings.uploads.linkSecrets,
    submissionId,
    fileId,
    expires: query.get("expires"),
    signature: query.get("signature"),
    nowMs: Date.now(),
  });
  if (verdict === "invalid") return downloadRefusal("not_found");
  if (verdict === "expired") return downloadRefusal("file_link_expired");
  const env = context.cloudflare.env;
  return downloadFile(env.DB, uploadsBucket(env), submissionId, fileId);
}

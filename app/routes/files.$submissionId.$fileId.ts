import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { uploadsBucket } from "~/lib/storage/file-objects.server";
import { downloadFile, downloadRefusal } from "~/lib/uploads/download.server";
import { verifyFileLink } from "~/lib/uploads/file-links.server";

// GET /files/:submissionId/:fileId?expires=…&signature=… — an uploaded file through the signed,
// expiring link a notification carried (app/lib/uploads/file-links.server.ts). A link that is not
// ours answers as if there were nothing here; one past its time says it expired.
export async function loader({ request, params, context }: LoaderFunctionArgs) {
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
  try {
    return await downloadFile(env.DB, uploadsBucket(env), submissionId, fileId);
  } catch (error) {
    console.error(`download of file ${fileId} failed:`, error);
    return downloadRefusal("storage_unavailable");
  }
}

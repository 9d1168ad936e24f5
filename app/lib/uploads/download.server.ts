import { ERROR_CODE_HEADER } from "~/lib/http/responses.server";
import { ERRORS, isErrorCode, type ErrorCode } from "~/lib/http/errors";
import { classifyD1Failure, storageCodeOf } from "~/lib/storage/d1-failure.server";
import { fileKey, findStoredFile } from "~/lib/storage/file-objects.server";
import { attachmentDisposition } from "~/lib/uploads/file-names";
import { servedType } from "~/lib/uploads/file-types";

// The one answer that carries a file's bytes: always an attachment, never sniffed, sandboxed (ADR 051).

export const DOWNLOAD_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy": "sandbox; default-src 'none'",
  "Cache-Control": "private, no-store",
  "Referrer-Policy": "no-referrer",
} as const;

/** The catalogue message as plain text. */
export function downloadRefusal(code: ErrorCode): Response {
  const { status, message } = ERRORS[code];
  return new Response(`${message}\n`, {
    status,
    headers: { ...DOWNLOAD_HEADERS, "Content-Type": "text/plain; charset=utf-8", [ERROR_CODE_HEADER]: code },
  });
}

/** Runs a download route, answering its refusals and storage failures as downloadRefusal does; a bug passes. */
export async function answerAsDownload(handler: () => Promise<Response>): Promise<Response> {
  try {
    return await handler();
  } catch (error) {
    if (error instanceof Response) {
      const code = error.headers.get(ERROR_CODE_HEADER);
      if (isErrorCode(code)) return downloadRefusal(code);
      throw error;
    }
    return downloadRefusal(storageCodeOf({ kind: classifyD1Failure(error), error }, "download"));
  }
}

/** The answer to anything but GET (and HEAD) on a download route. */
export function refuseDownloadMethod(): Response {
  return downloadRefusal("method_not_allowed");
}

/** The file as an attachment, or not_found / uploads_not_configured. D1 and R2 errors throw. */
export async function downloadFile(db: D1Database, bucket: R2Bucket | null, submissionId: string, fileId: string): Promise<Response> {
  const record = await findStoredFile(db, submissionId, fileId);
  if (!record || !record.kept) return downloadRefusal("not_found");
  if (!bucket) return downloadRefusal("uploads_not_configured");
  const object = await bucket.get(fileKey(record.file.id));
  if (!object) return downloadRefusal("not_found");
  return new Response(object.body, {
    headers: {
      ...DOWNLOAD_HEADERS,
      "Content-Type": servedType(record.file.type),
      "Content-Disposition": attachmentDisposition(record.file.name),
      "Content-Length": String(object.size),
    },
  });
}

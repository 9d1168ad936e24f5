import { isRouteErrorResponse } from "@remix-run/react";
import { isErrorCode, type ErrorCode } from "~/lib/http/errors";

// Which catalogue code a route error stands for. The error boundary shows it and entry.server.tsx puts
// it in the Gatepost-Error-Code header, so the page and the header always agree. Client-safe.

/** The fallback for every failure nobody refused on purpose: a bug, or a 5xx without a code. */
export const FALLBACK_ERROR_CODE = "internal_error" satisfies ErrorCode;

/** The code of a route error: its own catalogue code, else one derived from its status. Never throws. */
export function errorCodeOf(error: unknown): ErrorCode {
  if (!isRouteErrorResponse(error)) return FALLBACK_ERROR_CODE;
  const data = error.data as { code?: unknown } | null;
  if (typeof data === "object" && data !== null && isErrorCode(data.code)) return data.code;
  // Refusals the router makes itself (an unknown path, a method no route takes) have no body code.
  if (error.status === 404) return "not_found";
  if (error.status === 405) return "method_not_allowed";
  return error.status >= 500 ? FALLBACK_ERROR_CODE : "malformed_body";
}

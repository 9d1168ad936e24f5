import type { EntryContext } from "@remix-run/cloudflare";
import { isRouteErrorResponse } from "@remix-run/react";
import { isErrorCode, type ErrorCode } from "~/lib/http/errors";

// The catalogue code of a document response that a route boundary rendered, so every refusal of an
// HTML page carries Gatepost-Error-Code like the API's do (scripts and the fuzz test rely on it).

/** The code for the error a boundary is showing, or null when the page rendered without one. */
export function boundaryErrorCode(context: EntryContext): ErrorCode | null {
  const errors = context.staticHandlerContext.errors;
  if (!errors) return null;
  const error = Object.values(errors)[0];
  if (error === undefined) return null;
  if (!isRouteErrorResponse(error)) return "internal_error";
  const data = error.data as { code?: unknown } | null;
  if (typeof data === "object" && data !== null && isErrorCode(data.code)) return data.code;
  // Refusals the router makes itself (an unknown path, a method no route takes) have no body code.
  if (error.status === 404) return "not_found";
  if (error.status === 405) return "method_not_allowed";
  return error.status >= 500 ? "internal_error" : "malformed_body";
}

import { ERRORS, type ErrorCode } from "~/lib/http/errors";

/** A thrown refusal for document routes: the ErrorBoundary shows the catalogue message. */
export function refusal(code: ErrorCode): Response {
  const { status, message } = ERRORS[code];
  return new Response(JSON.stringify({ code, message }), {
    status,
    headers: { "content-type": "application/json; charset=utf-8" },
  });
}

import { isRouteErrorResponse, useRouteError } from "@remix-run/react";
import { ERRORS, isErrorCode } from "~/lib/http/errors";

// One boundary for every route. Refusals (thrown Responses) show their catalogue message; bugs show
// a generic line, never the internal error text.
export function GeneralErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error)) {
    const data = error.data as { code?: unknown; message?: unknown } | string | null;
    const code = typeof data === "object" && data && isErrorCode(data.code) ? data.code : null;
    const notFound = error.status === 404;
    const fallback = notFound ? "not_found" : error.status === 405 ? "method_not_allowed" : `http_${error.status}`;
    return (
      <>
        <h1>{notFound ? "Page not found" : "We could not accept that"}</h1>
        <p>{code ? ERRORS[code].message : notFound ? ERRORS.not_found.message : "The request was refused."}</p>
        <p className="error-code">
          Error code: <code>{code ?? fallback}</code>
        </p>
        <p>
          <a href="/">Go to the Gatepost home page</a>
        </p>
      </>
    );
  }
  return (
    <>
      <h1>Something went wrong</h1>
      <p>{ERRORS.internal_error.message}</p>
      <p>
        <a href="/">Go to the Gatepost home page</a>
      </p>
    </>
  );
}

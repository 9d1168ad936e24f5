import { isRouteErrorResponse, useRouteError } from "@remix-run/react";
import { errorCodeOf, errorMessageOf } from "~/lib/http/error-code";

// One boundary for every route. Refusals (thrown Responses) show their catalogue message; bugs show
// the fallback's generic line, never the internal error text. The code shown is the one
// entry.server.tsx puts in the Gatepost-Error-Code header (errorCodeOf decides both).
export function GeneralErrorBoundary() {
  const error = useRouteError();
  const code = errorCodeOf(error);
  const refused = isRouteErrorResponse(error);
  const notFound = refused && error.status === 404;
  return (
    <>
      <h1>{notFound ? "Page not found" : refused ? "We could not accept that" : "Something went wrong"}</h1>
      <p>{errorMessageOf(error)}</p>
      <p className="error-code">
        Error code: <code>{code}</code>
      </p>
      <p>
        <a href="/">Go to the Gatepost home page</a>
      </p>
    </>
  );
}

import { isRouteErrorResponse, useRouteError } from "@remix-run/react";
import { EN_REFUSAL } from "~/lib/text/refusal-words";
import { errorCodeOf, errorMessageOf, refusalPageOf } from "~/lib/http/error-code";

// One boundary for every route. Refusals (thrown Responses) show their catalogue message; bugs show
// the fallback's generic line, never the internal error text. The code shown is the one
// entry.server.tsx puts in the Gatepost-Error-Code header (errorCodeOf decides both).
export function GeneralErrorBoundary() {
  const error = useRouteError();
  const code = errorCodeOf(error);
  const refused = isRouteErrorResponse(error);
  const notFound = refused && error.status === 404;
  // A form's refusal comes with its words in the visitor's language; anything else speaks English.
  const t = refusalPageOf(error)?.texts ?? EN_REFUSAL;
  return (
    <>
      <h1>{notFound ? t.pageNotFound : refused ? t.refused : t.wrong}</h1>
      <p>{errorMessageOf(error)}</p>
      <p className="error-code">
        {t.errorCode} <code>{code}</code>
      </p>
      <p>
        <a href="/">{t.home}</a>
      </p>
    </>
  );
}

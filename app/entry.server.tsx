import type { AppLoadContext, EntryContext } from "@remix-run/cloudflare";
import { RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToReadableStream } from "react-dom/server";
import { ERROR_CODE_HEADER } from "~/lib/api-response.server";
import { boundaryErrorCode } from "~/lib/error-code.server";
import { NonceProvider } from "~/components/nonce";
import { readSettings } from "~/lib/env.server";
import { applySecurityHeaders, createNonce } from "~/lib/security-headers.server";

const ABORT_DELAY = 5_000;

// Every HTML document (pages, 404s, error boundaries) is rendered here, so the CSP nonce and the
// hardening headers are set in this one place.
export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = createNonce();
  const controller = new AbortController();
  const timeoutId = setTimeout(() => controller.abort(), ABORT_DELAY);
  const body = await renderToReadableStream(
    <NonceProvider value={nonce}>
      <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
    </NonceProvider>,
    {
      nonce,
      signal: controller.signal,
      onError(error: unknown) {
        if (!controller.signal.aborted) console.error(error);
        responseStatusCode = 500;
      },
    },
  );
  body.allReady.then(() => clearTimeout(timeoutId));
  if (isbot(request.headers.get("user-agent") || "")) await body.allReady;
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  const code = boundaryErrorCode(remixContext);
  if (code && !responseHeaders.has(ERROR_CODE_HEADER)) responseHeaders.set(ERROR_CODE_HEADER, code);
  applySecurityHeaders(responseHeaders, { nonce, scriptUrl: readSettings(loadContext.cloudflare.env).scriptUrl });
  return new Response(body, { headers: responseHeaders, status: responseStatusCode });
}

import type { AppLoadContext, EntryContext } from "@remix-run/cloudflare";
import { RemixServer } from "@remix-run/react";
import { renderToString } from "react-dom/server";
import { boundaryErrorCode, ERROR_CODE_HEADER } from "~/lib/http/responses.server";
import { NonceProvider } from "~/components/nonce";
import { StorageGuardProvider } from "~/components/storage-guard";
import { STORAGE_GUARD_SCRIPT } from "~/lib/http/storage-guard.server";
import { applySecurityHeaders, createNonce } from "~/lib/http/security-headers.server";

// The cron and queue handlers reach the app through this entry, so the Worker holds one copy of it (ADR 030).
export { runMaintenance } from "~/lib/maintenance/maintenance.server";
export { consumeDeadLetters, consumeDeliveryBatch } from "~/lib/delivery/queue.server";
export { consumeExportBatch } from "~/lib/exports/run.server";

// Every HTML document is rendered here, so the CSP nonce and hardening headers are set in one place; to a
// string, not streamed: small pages whose loaders answer at once gain nothing from a stream (ADR 011).
export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = createNonce();
  const html = renderToString(
    <NonceProvider value={nonce}>
      <StorageGuardProvider value={{ nonce, script: STORAGE_GUARD_SCRIPT }}>
        <RemixServer context={remixContext} url={request.url} nonce={nonce} />
      </StorageGuardProvider>
    </NonceProvider>,
  );
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  const code = boundaryErrorCode(remixContext);
  if (code && !responseHeaders.has(ERROR_CODE_HEADER)) responseHeaders.set(ERROR_CODE_HEADER, code);
  const { turnstile, site } = loadContext.settings;
  applySecurityHeaders(responseHeaders, {
    nonce,
    scriptUrl: turnstile.scriptUrl,
    look: { brandStyle: site.brand !== null, logoOrigin: site.logoOrigin },
  });
  // renderToString leaves the doctype out (the streaming renderer adds it for an <html> root).
  return new Response(`<!DOCTYPE html>${html}`, { headers: responseHeaders, status: responseStatusCode });
}

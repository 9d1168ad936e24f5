// wrangler 4.72's dev proxy (wrangler-dist/ProxyWorker.js) can park a GET forever. Every request to
// `wrangler pages dev` goes browser → ProxyWorker → user Worker, and the ProxyWorker keeps idle
// keep-alive connections to the user Worker. Both ends of that hop drop an idle connection after 5 s
// (workerd's client idleTimeout and server pipelineTimeout), so a request sent just under 5 s after the
// last one can be written to a connection the user Worker is closing: fetch fails with "Network
// connection lost.". The ProxyWorker then decides whether the user Worker was restarted by comparing
// the full URLs, path included (`http://127.0.0.1:N/assets/x.js` against `http://127.0.0.1:N/`), so any
// GET not for `/` is taken for a restart and put in its retry queue, which is only drained by the next
// incoming request or reload. When nothing else comes, the request never finishes and a page's "load"
// never fires: the e2e layer's intermittent 60 s stalls.
//
// The patch below, applied in place and idempotent: compare origins, retry a GET/HEAD that lost its
// connection (twice at most, on a fresh connection), and drain the retry queue whenever a request is
// parked in it. Upstream fixed the same failure later (workers-sdk#15252); drop this with an upgrade.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { applyEdits } from "./patch-file.mjs";

export const PROXY_WORKER = fileURLToPath(new URL("../node_modules/wrangler/wrangler-dist/ProxyWorker.js", import.meta.url));
export const MARKER = "/* gatepost: ProxyWorker keep-alive retry (scripts/patch-wrangler-proxy.mjs) */";

export const EDITS = [
  [
    `        if (userWorkerUrl.href === newUserWorkerUrl?.href) {\n`,
    `        ${MARKER}
        const sameUserWorker = userWorkerUrl.origin === newUserWorkerUrl?.origin;
        const retries = (this.keepAliveRetries ??= new WeakMap()).get(request) ?? 0;
        if (sameUserWorker && (request.method === "GET" || request.method === "HEAD") && retries < 2) {
          this.keepAliveRetries.set(request, retries + 1);
          console.log(\`[gatepost] ProxyWorker: \${request.method} \${innerUrl.pathname} lost its connection to the user Worker (\${error.message}); retrying\`);
          setTimeout(() => {
            this.requestRetryQueue.set(request, deferredResponse);
            this.processQueue();
          }, 100);
        } else if (sameUserWorker) {\n`,
  ],
  [
    `          this.requestRetryQueue.set(request, deferredResponse);\n        } else {\n`,
    `          this.requestRetryQueue.set(request, deferredResponse);\n          this.processQueue();\n        } else {\n`,
  ],
];

/**
 * Applies the fix to node_modules/wrangler once. Returns "patched", "already" or "not-applicable"
 * (the file no longer holds the code it fixes, e.g. after a wrangler upgrade); throws only on I/O errors.
 */
export function patchWranglerProxyWorker(file = PROXY_WORKER) {
  return applyEdits(file, MARKER, EDITS);
}

// `npm install` runs this (package.json postinstall), so `npm start`, the tests and the bench all get
// the fixed proxy; startPagesDev applies it again in case install scripts were skipped.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // An install without wrangler (or a moved file) must not fail `npm install` itself.
  const result = existsSync(PROXY_WORKER) ? patchWranglerProxyWorker() : "not-applicable";
  if (result === "not-applicable") {
    console.warn("patch-wrangler-proxy: wrangler's ProxyWorker.js no longer holds the code this fixes; nothing changed.");
  } else {
    console.log(`patch-wrangler-proxy: ${result === "patched" ? "applied" : "already applied"}`);
  }
}

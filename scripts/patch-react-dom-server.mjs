// React 18.3's streaming renderer for Web Streams (react-dom/server.browser, the build workerd and
// Pages pick for `renderToReadableStream`) turns every string it writes into bytes as it goes: each
// attribute name and value, each text node, each piece of markup is a separate TextEncoder.encode
// call, copied into a 512-byte buffer that is handed to the stream whenever it fills. A 7 KB form page
// makes hundreds of encode calls and more than a dozen enqueues, each a crossing into the runtime.
// In workerd that was a fifth of the CPU of rendering /f/contact (docs/performance.md, ADR 010).
// React 19 writes strings into a larger buffer with encodeInto; there is no 18.x release with it, and
// Remix 2 asks for React 18.
//
// The patch below, applied in place and idempotent: while a flush runs, chunks are kept as JS strings
// and joined; at the end of the flush (React's own completeWriting) the joined text is encoded once
// and enqueued as one chunk. Flushes happen where they did (the shell, then each finished Suspense
// boundary), so streaming is unchanged; only the number of encode calls and enqueues falls. The HTML
// is byte for byte the same (tests/unit/patch-react-dom-server.test.ts compares it with the
// development build, which is left as published).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { applyEdits } from "./patch-file.mjs";

export const SERVER_BROWSER = fileURLToPath(
  new URL("../node_modules/react-dom/cjs/react-dom-server.browser.production.min.js", import.meta.url),
);
export const MARKER = "/* gatepost: one encode per flush (scripts/patch-react-dom-server.mjs) */";

// Names are those of react-dom 18.3.1's minified build: `l`/`n` the 512-byte view and its fill, `p`
// writeChunk, `t` writeChunkAndReturn, `ba` completeWriting, `fd` flushCompletedQueues (whose first
// statement is beginWriting), `u` stringToChunk and `w` stringToPrecomputedChunk.
export const EDITS = [
  ["var l=null,n=0;", `${MARKER}var l="",n=0;`],
  [
    "function p(a,b){if(0!==b.length)if(512<b.length)0<n&&(a.enqueue(new Uint8Array(l.buffer,0,n)),l=new Uint8Array(512),n=0),a.enqueue(b);else{var c=l.length-n;c<b.length&&(0===c?a.enqueue(l):(l.set(b.subarray(0,c),n),a.enqueue(l),b=b.subarray(c)),l=new Uint8Array(512),n=0);l.set(b,n);n+=b.length}}",
    "function p(a,b){l+=b}",
  ],
  [
    "function ba(a){l&&0<n&&(a.enqueue(new Uint8Array(l.buffer,0,n)),l=null,n=0)}",
    'function ba(a){0<l.length&&(a.enqueue(ca.encode(l)),l="")}',
  ],
  ["function fd(a,b){l=new Uint8Array(512);n=0;", 'function fd(a,b){l="";n=0;'],
  ["ba(b);l=new Uint8Array(512);n=0;", 'ba(b);l="";n=0;'],
  ["function u(a){return ca.encode(a)}function w(a){return ca.encode(a)}", "function u(a){return a}function w(a){return a}"],
];

/** Applies the patch once. Returns "patched", "already" or "not-applicable" (another React build). */
export function patchReactDomServer(file = SERVER_BROWSER) {
  return existsSync(file) ? applyEdits(file, MARKER, EDITS) : "not-applicable";
}

// `npm install` runs this (package.json postinstall), so the Function wrangler bundles for Pages,
// the tests and the bench all render with it.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = patchReactDomServer();
  if (result === "not-applicable") {
    console.warn("patch-react-dom-server: react-dom no longer holds the code this changes; left as is (slower, still correct).");
  } else {
    console.log(`patch-react-dom-server: ${result === "patched" ? "applied" : "already applied"}`);
  }
}

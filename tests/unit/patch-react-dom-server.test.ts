import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createElement as h, Suspense, type ReactNode } from "react";
import { describe, expect, it } from "vitest";
// @ts-ignore - a plain .mjs script
import { MARKER, SERVER_BROWSER } from "../../scripts/patch-react-dom-server.mjs";

// One encode per flush in React's Web Streams renderer (ADR 010). The development build is left as
// published and renders the same HTML, so it is the reference.

type Render = (node: ReactNode, options?: Record<string, unknown>) => Promise<ReadableStream<Uint8Array> & { allReady: Promise<void> }>;
const require = createRequire(import.meta.url);
const patched = require(SERVER_BROWSER as string).renderToReadableStream as Render;
const reference = require((SERVER_BROWSER as string).replace(".production.min.js", ".development.js")).renderToReadableStream as Render;

async function chunksOf(stream: ReadableStream<Uint8Array>, onChunk?: (index: number) => void): Promise<string[]> {
  const decoder = new TextDecoder();
  const chunks: string[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    expect(value).toBeInstanceOf(Uint8Array);
    chunks.push(decoder.decode(value));
    onChunk?.(chunks.length);
  }
}

/** A component that suspends until `gate` resolves (React 18: throw the promise). */
function Deferred({ gate, text }: { gate: { done: boolean; promise: Promise<void> }; text: string }) {
  if (!gate.done) throw gate.promise;
  return h("p", { className: "late", "data-x": "ü & <\"'>" }, text);
}

function gate() {
  let open = () => {};
  const g = { done: false, promise: new Promise<void>((resolve) => (open = resolve)), open: () => {} };
  g.open = () => {
    g.done = true;
    open();
  };
  return g;
}

function page(extra: ReactNode = null): ReactNode {
  const long = "Lorem ipsum dolor sit amet — ünïcödé, 漢字 and 😀 (a surrogate pair). ".repeat(400);
  return h(
    "html",
    { lang: "en" },
    h("head", null, h("meta", { charSet: "utf-8" }), h("title", null, "Contact — Gatepost"), h("style", { dangerouslySetInnerHTML: { __html: "a>b{color:red}" } })),
    h(
      "body",
      null,
      h("main", { id: "main", tabIndex: -1, style: { marginTop: 4, color: "rebeccapurple" } }, h("h1", null, "Grüße 👋"), h("p", null, long)),
      h("form", { method: "post", noValidate: true }, h("input", { name: "a", required: true, defaultValue: "x\"y<z" }), h("textarea", { name: "m", defaultValue: "é".repeat(700) })),
      extra,
    ),
  );
}

describe("patch-react-dom-server", () => {
  it("is applied to the build workerd and Pages use", () => {
    expect(readFileSync(SERVER_BROWSER as string, "utf8").includes(MARKER), "run `node scripts/patch-react-dom-server.mjs` (npm install runs it)").toBe(true);
  });

  it("renders a page byte for byte as the published renderer does, in one chunk per flush", async () => {
    const options = { nonce: "abc", bootstrapScriptContent: "window.x = '</script>';" };
    const ours = await chunksOf(await patched(page(), options));
    const theirs = await chunksOf(await reference(page(), options));
    expect(ours.join("")).toBe(theirs.join(""));
    expect(ours.join("").length).toBeGreaterThan(20_000);
    // One flush (no Suspense boundary waits), so one encode and one chunk.
    expect(ours).toHaveLength(1);
  });

  it("still streams: the shell is sent before a suspended boundary resolves, and the result is the same", async () => {
    const render = async (renderer: Render) => {
      const g = gate();
      const stream = await renderer(page(h(Suspense, { fallback: h("p", null, "Loading…") }, h(Deferred, { gate: g, text: "Später 🚀" }))));
      // Chunks read before the suspended component may go on are the shell.
      let shell = 0;
      const chunks = await chunksOf(stream, (count) => {
        if (g.done) return;
        shell = count;
        if (count === 1) setTimeout(g.open, 20);
      });
      return { chunks, shell };
    };
    const ours = await render(patched);
    const theirs = await render(reference);
    const shell = ours.chunks.slice(0, ours.shell).join("");
    expect(shell).toContain("Loading…");
    expect(shell).not.toContain("Später");
    expect(ours.chunks.slice(ours.shell).join("")).toContain("Später 🚀");
    expect(ours.chunks.join("")).toBe(theirs.chunks.join(""));
  });
});

import { describe, expect, it } from "vitest";
import { appFetch, testEnv } from "./helpers";

// ADR 098 in workerd, through the real Worker entry (functions/fetch.ts): with LOCAL_DRAIN_BODIES the
// rest of an over-size post is read before the 413 goes; without it (deployed) it is left unread.

const MIB = 1024 * 1024;

/** A streamed urlencoded post of `chunks` MiB to the contact form, counting the chunks pulled from it. */
function streamedPost(chunks: number) {
  const pulled = { chunks: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled.chunks >= chunks) return controller.close();
      pulled.chunks += 1;
      controller.enqueue(new TextEncoder().encode(pulled.chunks === 1 ? `name=Ada&message=${"a".repeat(MIB - 17)}` : "a".repeat(MIB)));
    },
  });
  const request = new Request("http://localhost/f/contact", {
    method: "POST",
    body,
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  return { request, pulled };
}

describe("the rest of a refused body", () => {
  it("is read before the 413 goes when LOCAL_DRAIN_BODIES is on", async () => {
    const { request, pulled } = streamedPost(8);
    const response = await appFetch(request, testEnv({ LOCAL_DRAIN_BODIES: "true" }));
    expect([response.status, response.headers.get("gatepost-error-code")]).toEqual([413, "body_too_large"]);
    expect(pulled.chunks).toBe(8);
  });

  it("is left unread without it, as deployed", async () => {
    const { request, pulled } = streamedPost(8);
    const response = await appFetch(request, testEnv());
    expect([response.status, response.headers.get("gatepost-error-code")]).toEqual([413, "body_too_large"]);
    expect(pulled.chunks).toBeLessThan(8);
  });
});

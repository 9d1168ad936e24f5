import { describe, expect, it } from "vitest";
import { readMessageUpTo, readUpTo } from "~/lib/http/read-stream.server";

function streamOf(chunks: string[], { failAfter }: { failAfter?: number } = {}) {
  let i = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (failAfter !== undefined && i === failAfter) return controller.error(new Error("connection reset"));
      if (i < chunks.length) controller.enqueue(new TextEncoder().encode(chunks[i++]));
      else controller.close();
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, pulled: () => i, cancelled: () => cancelled };
}

describe("readUpTo", () => {
  it("reads a body within the cap whole, in order", async () => {
    const read = await readUpTo(streamOf(["ab", "cd", "e"]).stream, 5);
    expect(read?.overflow).toBe(false);
    expect(new TextDecoder().decode(read!.bytes)).toBe("abcde");
  });

  it("stops one chunk past the cap, flags the overflow and cancels the rest unread", async () => {
    const source = streamOf(["abc", "def", "ghi", "jkl"]);
    const read = await readUpTo(source.stream, 4);
    expect(read?.overflow).toBe(true);
    expect(new TextDecoder().decode(read!.bytes)).toBe("abcdef");
    expect(source.pulled()).toBeLessThan(4);
    expect(source.cancelled()).toBe(true);
  });

  it("answers null, never throws, when the stream errors", async () => {
    expect(await readUpTo(streamOf(["abc", "def"], { failAfter: 1 }).stream, 100)).toBeNull();
  });
});

describe("readMessageUpTo", () => {
  const text = (read: { bytes: Uint8Array } | null) => new TextDecoder().decode(read!.bytes);

  it("reads a body whose declared length is within the cap whole", async () => {
    const request = new Request("http://x/", { method: "POST", body: "name=Ada", headers: { "content-length": "8" } });
    const read = await readMessageUpTo(request, 100);
    expect(read?.overflow).toBe(false);
    expect(text(read)).toBe("name=Ada");
  });

  it("still flags a body longer than the cap when its declared length understates it", async () => {
    // HTTP framing stops a real client from sending more than it declared; an in-process message
    // can, and the cap still holds.
    const response = new Response("x".repeat(50), { headers: { "content-length": "10" } });
    const read = await readMessageUpTo(response, 20);
    expect(read?.overflow).toBe(true);
  });

  it("streams with the cap when no length is declared or the declared one is over the cap", async () => {
    const source = streamOf(["abc", "def", "ghi", "jkl"]);
    const unsized = new Response(source.stream);
    const read = await readMessageUpTo(unsized, 4);
    expect(read?.overflow).toBe(true);
    expect(source.cancelled()).toBe(true);

    const big = streamOf(["abc", "def", "ghi"]);
    const declaredBig = new Response(big.stream, { headers: { "content-length": "9" } });
    expect((await readMessageUpTo(declaredBig, 4))?.overflow).toBe(true);
    expect(big.pulled()).toBeLessThan(3);
  });

  it("answers an empty read for a message without a body, and null for a broken one", async () => {
    expect(await readMessageUpTo(new Request("http://x/"), 10)).toEqual({ bytes: new Uint8Array(), overflow: false });
    const broken = new Response(streamOf(["abc"], { failAfter: 0 }).stream, { headers: { "content-length": "3" } });
    expect(await readMessageUpTo(broken, 10)).toBeNull();
  });
});

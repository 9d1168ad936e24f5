import { describe, expect, it } from "vitest";
import { readUpTo } from "~/lib/read-stream.server";

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

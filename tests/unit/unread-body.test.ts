import { describe, expect, it, vi } from "vitest";
import { withDrainableBody } from "~/lib/http/unread-body.server";

// ADR 098: under LOCAL_DRAIN_BODIES the Worker reads what the app left of a body before answering,
// within a cap in bytes and in time, and never holds a request that had no body.

/** A body of `chunks` chunks of `size` bytes, counting what was pulled; endless when chunks is Infinity. */
function countedBody(chunks: number, size = 1024) {
  const pulled = { chunks: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled.chunks >= chunks) return controller.close();
      pulled.chunks += 1;
      controller.enqueue(new Uint8Array(size));
    },
    cancel() {
      pulled.cancelled = true;
    },
  });
  const request = new Request("http://localhost/f/apply", { method: "POST", body: stream, duplex: "half" } as RequestInit);
  return { request, pulled };
}

describe("withDrainableBody", () => {
  it("reads the rest of a body the app cancelled after one chunk", async () => {
    const { request, pulled } = countedBody(50);
    const drainable = withDrainableBody(request, { maxBytes: 1 << 20, maxMs: 5_000 });
    const reader = drainable.request.body!.getReader();
    expect((await reader.read()).value?.byteLength).toBe(1024);
    await reader.cancel();
    expect(pulled.chunks).toBeLessThan(50);
    await drainable.drain();
    expect(pulled.chunks).toBe(50);
    expect(pulled.cancelled).toBe(false);
  });

  it("gives the app the body unchanged, and has nothing to drain once it was read", async () => {
    const { request, pulled } = countedBody(3, 10);
    const drainable = withDrainableBody(request, { maxBytes: 1 << 20, maxMs: 5_000 });
    expect((await drainable.request.arrayBuffer()).byteLength).toBe(30);
    await drainable.drain();
    expect(pulled.chunks).toBe(3);
  });

  it("stops at the byte cap and cancels the rest", async () => {
    const { request, pulled } = countedBody(Infinity);
    const drainable = withDrainableBody(request, { maxBytes: 64 * 1024, maxMs: 60_000 });
    await drainable.request.body!.cancel();
    await drainable.drain();
    expect(pulled.chunks * 1024).toBeGreaterThan(64 * 1024);
    expect(pulled.chunks * 1024).toBeLessThanOrEqual(66 * 1024);
    expect(pulled.cancelled).toBe(true);
  });

  it("stops at the time cap when the client sends nothing more", async () => {
    const pulled = { cancelled: false };
    const silent = new ReadableStream<Uint8Array>({
      pull: () => new Promise<void>(() => {}),
      cancel: () => void (pulled.cancelled = true),
    });
    const request = new Request("http://localhost/f/apply", { method: "POST", body: silent, duplex: "half" } as RequestInit);
    // The clock is vitest's: the cap is held to the millisecond without waiting for it.
    vi.useFakeTimers();
    try {
      const drainable = withDrainableBody(request, { maxBytes: 1 << 20, maxMs: 15_000 });
      await drainable.request.body!.cancel();
      let settled = false;
      const done = drainable.drain().then(() => (settled = true));
      await vi.advanceTimersByTimeAsync(14_999);
      expect([settled, pulled.cancelled]).toEqual([false, false]);
      await vi.advanceTimersByTimeAsync(1);
      await done;
      expect(pulled.cancelled).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it("leaves a request without a body as it is", async () => {
    const request = new Request("http://localhost/f/apply");
    const drainable = withDrainableBody(request);
    expect(drainable.request).toBe(request);
    await drainable.drain();
  });
});

// Local dev only (ADR 098): behind `wrangler dev`'s proxy, an answer given before its body was read loses the
// connection (a 502), so with LOCAL_DRAIN_BODIES the Worker reads the rest first, within a cap in bytes and time.

export interface DrainLimits {
  maxBytes: number;
  maxMs: number;
}

/** 64 MiB and 15 s: twice the largest post a form may take (32 MB of files, ADR 050); 31 MB drained here in under 0.5 s (ADR 098). */
export const LOCAL_DRAIN_LIMITS: DrainLimits = { maxBytes: 64 * 1024 * 1024, maxMs: 15_000 };

export interface DrainableRequest {
  request: Request;
  drain(): Promise<void>;
}

/** `request` whose unread rest can be drained after the app answers; a request without a body is left as it is. */
export function withDrainableBody(request: Request, limits: DrainLimits = LOCAL_DRAIN_LIMITS): DrainableRequest {
  if (!request.body) return { request, drain: async () => {} };
  const source = request.body.getReader();
  let ended = false;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await source.read();
        if (next.done) {
          ended = true;
          controller.close();
        } else controller.enqueue(next.value);
      },
      // The app gave up on the body (a refusal): the rest stays for drain().
      cancel() {},
    },
    { highWaterMark: 0 },
  );
  return {
    // duplex: what Node's Request needs for a stream body; workerd ignores it.
    request: new Request(request, { body, duplex: "half" } as RequestInit),
    drain: () => (ended ? Promise.resolve() : drainRest(source, limits)),
  };
}

async function drainRest(source: ReadableStreamDefaultReader<Uint8Array>, { maxBytes, maxMs }: DrainLimits): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), maxMs)));
  let read = 0;
  try {
    while (read <= maxBytes) {
      const next = await Promise.race([source.read(), late]);
      if (next === "late" || next.done) return;
      read += next.value.byteLength;
    }
  } catch {
    // The client went away: nothing left to read.
  } finally {
    clearTimeout(timer);
    source.cancel().catch(() => {});
  }
}

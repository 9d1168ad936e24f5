// Reading a body without trusting its size: callers say how much they will hold, and reading stops
// once that is passed, so a huge or endless body costs at most one chunk beyond the cap.

export interface CappedRead {
  /** Everything read, which may run one chunk past the cap when `overflow` is true. */
  bytes: Uint8Array<ArrayBuffer>;
  /** True when the stream held more than `maxBytes`; the rest was cancelled unread. */
  overflow: boolean;
}

/** Reads up to `maxBytes` of a stream. Returns null when the stream errors; never throws. */
export async function readUpTo(stream: ReadableStream<Uint8Array>, maxBytes: number): Promise<CappedRead | null> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => {});
        break;
      }
    }
  } catch {
    return null;
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { bytes, overflow: total > maxBytes };
}

/**
 * readUpTo for a whole message. A declared Content-Length within the cap already bounds the body, so it
 * is read in one native call (a JS reader costs more CPU than the rest of a small post), then checked.
 */
export async function readMessageUpTo(message: Request | Response, maxBytes: number): Promise<CappedRead | null> {
  if (!message.body) return { bytes: new Uint8Array(), overflow: false };
  const declared = message.headers.get("content-length");
  const length = declared !== null && /^\d{1,15}$/.test(declared) ? Number(declared) : null;
  if (length === null || length > maxBytes) return readUpTo(message.body, maxBytes);
  try {
    const bytes = new Uint8Array(await message.arrayBuffer());
    return { bytes: bytes.byteLength > maxBytes ? bytes.slice(0, maxBytes + 1) : bytes, overflow: bytes.byteLength > maxBytes };
  } catch {
    return null;
  }
}

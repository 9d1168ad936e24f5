// Reading a body without trusting its size: reading stops once the cap is passed, one chunk at most beyond it.

export interface CappedRead {
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

/** readUpTo for a whole message; a declared length within the cap is read in one native call, cheaper than a JS reader. */
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

// vitest-pool-workers 0.12 starts workerd with --verbose in every run (its shared Miniflare options, not
// configurable), so workerd's info-level records reach the terminal: each connection a test refused on
// purpose, with a line of addresses. This shows workerd's output at its default level instead: warnings
// and errors pass, an info record and the stack line after it do not.

const INFO_RECORD = /^workerd\/\S+:\d+: info: /;

/** Filters workerd's info records out of what `stream` is written; returns the undo. Lines other than workerd's pass untouched. */
export function hideWorkerdInfo(stream: NodeJS.WriteStream = process.stderr): () => void {
  const write = stream.write.bind(stream);
  let hiding = false;
  const filtered = (chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk !== "string" && !(chunk instanceof Uint8Array)) return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    const kept = String(chunk)
      .split(/(?<=\n)/)
      .filter((line) => {
        if (INFO_RECORD.test(line)) return !(hiding = true);
        if (hiding && line.startsWith("stack: ")) return false;
        hiding = false;
        return true;
      });
    if (kept.length === 0) return true;
    return (write as (...a: unknown[]) => boolean)(kept.join(""), ...rest);
  };
  stream.write = filtered as typeof stream.write;
  return () => {
    stream.write = write;
  };
}

// A document the browser denies storage (a frame on another site where third-party storage is blocked,
// as Chrome Incognito, Safari and Firefox's strict mode do; or a site whose data the visitor blocks)
// throws a SecurityError on any read of `sessionStorage`. Remix's lazy route discovery reads it after
// every manifest patch, unguarded, so a framed form's send failed (ADR 108). The guard runs first in
// <head> and gives such a document a sessionStorage of its own memory; where storage works it does nothing.

type StorageWindow = Pick<Window, "sessionStorage">;

/** Replaces a denied `win.sessionStorage` with one kept in memory for this document. Never throws. */
export function guardSessionStorage(win: StorageWindow): void {
  try {
    if (typeof win.sessionStorage.length === "number") return;
  } catch {
    // denied: replaced below
  }
  const items = new Map<string, string>();
  const memory = {
    getItem: (key: string) => items.get(String(key)) ?? null,
    setItem: (key: string, value: string) => void items.set(String(key), String(value)),
    removeItem: (key: string) => void items.delete(String(key)),
    clear: () => items.clear(),
    key: (index: number) => Array.from(items.keys())[index] ?? null,
  };
  Object.defineProperty(memory, "length", { get: () => items.size });
  try {
    Object.defineProperty(win, "sessionStorage", { value: memory, configurable: true });
  } catch {
    // A browser that will not let it be replaced keeps its own behaviour.
  }
}

/** The guard as an inline script, run before any of the page's modules. */
export function StorageGuard({ nonce }: { nonce: string }) {
  return (
    <script
      nonce={nonce}
      suppressHydrationWarning
      dangerouslySetInnerHTML={{ __html: `(${guardSessionStorage.toString()})(window)` }}
    />
  );
}

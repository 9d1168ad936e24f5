// A document the browser denies storage (a frame on another site where third-party storage is blocked,
// as Chrome Incognito, Safari and Firefox's strict mode do; or a site whose data the visitor blocks)
// throws a SecurityError on any read of `sessionStorage`. Remix's lazy route discovery reads it after
// every manifest patch, unguarded, so a framed form's send failed (ADR 108). This guard runs before
// a framed page's content and gives such a document a sessionStorage of its own memory; where storage
// works it does nothing. Server-only: the browser gets it as the text of one inline script.

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

/** The guard as the text of an inline script (app/components/storage-guard.tsx renders it). */
export const STORAGE_GUARD_SCRIPT = `(${guardSessionStorage.toString()})(window)`;

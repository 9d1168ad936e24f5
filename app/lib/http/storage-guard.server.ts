// A document denied storage (a frame where third-party storage is blocked) throws on any read of
// `sessionStorage`, which Remix's route discovery makes unguarded (ADR 108). This gives such a document a
// sessionStorage in memory before a framed page's content runs; where storage works it does nothing.

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

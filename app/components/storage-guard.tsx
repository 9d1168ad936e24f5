import { createContext, useContext } from "react";

// The inline script of the storage guard (app/lib/http/storage-guard.server.ts, ADR 108) and the
// request's CSP nonce, handed in by entry.server.tsx. A framed page renders it before its content, so
// it runs as the page is parsed, before any module; the browser renders the element empty and keeps the
// parsed copy (hydration leaves inner HTML alone), so none of it is in the client's JS.
const GuardContext = createContext({ nonce: "", script: "" });

export const StorageGuardProvider = GuardContext.Provider;

/** The storage guard's <script>, for a framed page: before anything that reads storage. */
export function StorageGuard() {
  const { nonce, script } = useContext(GuardContext);
  return <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: script }} />;
}

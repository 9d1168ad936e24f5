import { createContext, useContext } from "react";

// The CSP nonce of the current request, set by entry.server.tsx. In the browser it is empty: Chromium
// hides nonce values from the DOM, and scripts added after hydration are trusted via 'strict-dynamic'.
const NonceContext = createContext("");

export const NonceProvider = NonceContext.Provider;

/** The request's CSP nonce on the server, "" in the browser. */
export function useNonce(): string {
  return useContext(NonceContext);
}

import { createContext, useContext } from "react";

// The request's CSP nonce; empty in the browser, where Chromium hides it and 'strict-dynamic' trusts later scripts.
const NonceContext = createContext("");

export const NonceProvider = NonceContext.Provider;

/** The request's CSP nonce on the server, "" in the browser. */
export function useNonce(): string {
  return useContext(NonceContext);
}

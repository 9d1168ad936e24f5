import { createContext, useContext } from "react";

// The storage guard's inline script (ADR 108), rendered before a framed page's content so it runs as the page is
// parsed; hydration leaves its inner HTML alone, so none of it is in the client's JS.
const GuardContext = createContext({ nonce: "", script: "" });

export const StorageGuardProvider = GuardContext.Provider;

/** The storage guard's <script>, for a framed page: before anything that reads storage. */
export function StorageGuard() {
  const { nonce, script } = useContext(GuardContext);
  return <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: script }} />;
}

// Loads Turnstile's api.js from the configured URL. react-turnstile hard-codes Cloudflare's URL, so we
// load the script ourselves and import react-turnstile only afterwards, when it finds window.turnstile
// already present and never injects its own copy. This also keeps the script off pages with no form.

declare global {
  interface Window {
    turnstile?: unknown;
    __gatepostTurnstileLoaded?: () => void;
  }
}

export const SCRIPT_TIMEOUT_MS = 10_000;
let pending: Promise<void> | null = null;

/** Resolves once window.turnstile exists; rejects on a load error or after `timeoutMs`. */
export function loadTurnstileScript(src: string, timeoutMs = SCRIPT_TIMEOUT_MS): Promise<void> {
  if (window.turnstile) return Promise.resolve();
  if (pending) return pending;
  pending = new Promise<void>((resolve, reject) => {
    const script = document.createElement("script");
    const fail = (reason: string) => {
      clearTimeout(timer);
      pending = null;
      script.remove();
      reject(new Error(reason));
    };
    const timer = setTimeout(() => fail("Turnstile did not load in time"), timeoutMs);
    window.__gatepostTurnstileLoaded = () => {
      clearTimeout(timer);
      resolve();
    };
    const url = new URL(src, window.location.href);
    url.searchParams.set("render", "explicit");
    url.searchParams.set("onload", "__gatepostTurnstileLoaded");
    script.src = url.toString();
    script.async = true;
    script.addEventListener("error", () => fail("Turnstile script failed to load"));
    document.head.appendChild(script);
  });
  return pending;
}

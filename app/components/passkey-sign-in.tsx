import { useFetcher } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";

// "Sign in with a passkey" on the sign-in page: /admin/passkey hands out a challenge, the browser's
// ceremony runs through @simplewebauthn/browser (fetched only on click, so the page stays light), and
// the answer comes back for the session.

type Answer = { options?: unknown; next?: string; message?: string };

export function PasskeySignIn({ next }: { next: string }) {
  const fetcher = useFetcher<Answer>();
  const [problem, setProblem] = useState<string | null>(null);
  const asked = useRef(false);
  useEffect(() => {
    const data = fetcher.data;
    if (fetcher.state !== "idle" || !data) return;
    if (data.next) window.location.assign(data.next);
    if (!data.options || !asked.current) return;
    asked.current = false;
    void (async () => {
      try {
        const { startAuthentication } = await import("@simplewebauthn/browser");
        const response = await startAuthentication({
          optionsJSON: data.options as Parameters<typeof startAuthentication>[0]["optionsJSON"],
        });
        fetcher.submit({ response: JSON.stringify(response), next }, { method: "post", action: "/admin/passkey" });
      } catch {
        setProblem("No passkey signed you in (cancelled, timed out, or none for this site).");
      }
    })();
  }, [fetcher, fetcher.data, fetcher.state, next]);
  const message = problem ?? fetcher.data?.message ?? null;
  return (
    <div className="passkey-sign-in">
      <button
        type="button"
        className="secondary"
        disabled={fetcher.state !== "idle"}
        onClick={() => {
          setProblem(null);
          asked.current = true;
          fetcher.submit({}, { method: "post", action: "/admin/passkey" });
        }}
      >
        Sign in with a passkey
      </button>
      {message ? (
        <p className="notice error" role="alert">
          {message}
        </p>
      ) : null}
    </div>
  );
}

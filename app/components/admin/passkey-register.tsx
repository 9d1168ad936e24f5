import { useFetcher } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";

// Adds a passkey: the page's action hands out options, @simplewebauthn/browser runs the browser's
// ceremony (loaded only when asked for), and the answer goes back to the action to be verified and kept.

type Answer = { ok: boolean; message: string | null; options: unknown };

export function PasskeyRegister() {
  const fetcher = useFetcher<Answer>();
  const [name, setName] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const pending = useRef<string | null>(null);
  useEffect(() => {
    const options = fetcher.data?.options;
    if (fetcher.state !== "idle" || !options || pending.current === null) return;
    const chosen = pending.current;
    pending.current = null;
    void (async () => {
      try {
        const { startRegistration } = await import("@simplewebauthn/browser");
        const response = await startRegistration({ optionsJSON: options as Parameters<typeof startRegistration>[0]["optionsJSON"] });
        fetcher.submit({ intent: "register", name: chosen, response: JSON.stringify(response) }, { method: "post" });
      } catch (error) {
        setProblem(
          error instanceof Error && error.name === "NotAllowedError"
            ? "The passkey was not made (cancelled or timed out)."
            : "This browser could not make a passkey.",
        );
      }
    })();
  }, [fetcher, fetcher.data, fetcher.state]);
  const message = problem ?? (fetcher.data && !fetcher.data.options ? fetcher.data.message : null);
  return (
    <>
      <h2 id="new-passkey">Add a passkey</h2>
      <form
        className="filters"
        aria-labelledby="new-passkey"
        onSubmit={(event) => {
          event.preventDefault();
          setProblem(null);
          pending.current = name.trim();
          fetcher.submit({ intent: "options" }, { method: "post" });
        }}
      >
        <label className="wide">
          Name
          <input
            name="name"
            required
            maxLength={60}
            value={name}
            onChange={(event) => setName(event.target.value)}
            placeholder="work laptop"
          />
        </label>
        <button type="submit" disabled={fetcher.state !== "idle"}>
          Add a passkey
        </button>
      </form>
      <div role="status" aria-live="polite">
        {message ? <p className={fetcher.data?.ok && !problem ? "notice ok" : "notice error"}>{message}</p> : null}
      </div>
    </>
  );
}

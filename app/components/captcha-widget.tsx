import { useEffect, useRef, useState, type ComponentType } from "react";
import type { BoundTurnstileObject, TurnstileProps } from "react-turnstile";
import { loadTurnstileScript } from "~/components/turnstile-script";
import type { PageTexts } from "~/lib/i18n/messages/types";

export type CaptchaStatus = "loading" | "ready" | "expired" | "error" | "blocked";

interface Props {
  siteKey: string;
  scriptUrl: string;
  action: string;
  /** Bump to reset the widget, after any refusal from the server. */
  resetKey: number;
  onTokenChange: (token: string | null) => void;
  onStatusChange?: (status: CaptchaStatus) => void;
  texts: PageTexts["captcha"];
  /** The widget's own language (Turnstile's two-letter codes); "auto" follows the browser. */
  language?: string;
}

/** The Turnstile widget with visible states for loading, ready, expired, error and a blocked script. */
export function CaptchaWidget({ siteKey, scriptUrl, action, resetKey, onTokenChange, onStatusChange, texts, language = "auto" }: Props) {
  const [status, setStatus] = useState<CaptchaStatus>("loading");
  const [Widget, setWidget] = useState<ComponentType<TurnstileProps> | null>(null);
  const [attempt, setAttempt] = useState(0);
  const bound = useRef<BoundTurnstileObject | null>(null);
  // react-turnstile keeps the callbacks of its first render, so they must reach the latest props via a ref.
  const tokenChange = useRef(onTokenChange);
  tokenChange.current = onTokenChange;
  const statusChange = useRef(onStatusChange);
  statusChange.current = onStatusChange;
  useEffect(() => statusChange.current?.(status), [status]);

  useEffect(() => {
    let cancelled = false;
    setStatus("loading");
    loadTurnstileScript(scriptUrl)
      .then(() => import("react-turnstile"))
      .then((mod) => {
        if (!cancelled) setWidget(() => mod.Turnstile);
      })
      .catch(() => {
        if (!cancelled) setStatus("blocked");
      });
    return () => {
      cancelled = true;
    };
  }, [scriptUrl, attempt]);

  useEffect(() => {
    if (resetKey === 0 || !bound.current) return;
    tokenChange.current(null);
    setStatus("loading");
    bound.current.reset();
  }, [resetKey]);

  const retry = () => {
    tokenChange.current(null);
    if (status === "blocked") {
      setAttempt((n) => n + 1);
      return;
    }
    setStatus("loading");
    bound.current?.reset();
  };

  const failed = status === "error" || status === "blocked";
  return (
    <div className="captcha" data-state={status}>
      {/* The widget's own height, so it appearing shifts nothing; collapsed when the script never loaded. */}
      <div className="captcha-slot" hidden={status === "blocked"}>
        {Widget ? (
          <Widget
            sitekey={siteKey}
            action={action}
            language={language}
            refreshExpired="auto"
            onLoad={(_id, b) => {
              bound.current = b;
            }}
            onSuccess={(token) => {
              setStatus("ready");
              tokenChange.current(token);
            }}
            onExpire={() => {
              setStatus("expired");
              tokenChange.current(null);
            }}
            onTimeout={() => {
              setStatus("expired");
              tokenChange.current(null);
              bound.current?.reset();
            }}
            onError={() => {
              setStatus((s) => (s === "blocked" ? s : "error"));
              tokenChange.current(null);
            }}
          />
        ) : null}
      </div>
      {/* One element for every state (tests and assistive technology follow it); a failure is an alert. */}
      <div className={failed ? "captcha-feedback notice error" : "captcha-feedback"}>
        <p
          className="captcha-status"
          role={failed ? "alert" : "status"}
          aria-live={failed ? "assertive" : "polite"}
          data-captcha-status={status}
        >
          {texts[status]}
        </p>
        {failed ? (
          <button type="button" className="secondary" onClick={retry}>
            {texts.retry}
          </button>
        ) : null}
      </div>
      <noscript>
        <p className="notice error">{texts.noscript}</p>
      </noscript>
    </div>
  );
}

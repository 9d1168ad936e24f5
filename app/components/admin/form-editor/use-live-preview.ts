import { useFetcher } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";

// The preview follows typing: a pause of DELAY_MS after the last change posts the editor's inputs with
// intent "preview" to the page's own action, which renders them and saves nothing (ADR 110). The
// fetcher's key holds the page's revision, so a save, add or discard starts again from the saved draft.

const DELAY_MS = 250;

export function useLivePreview(revision: string, saved: string | null) {
  const fetcher = useFetcher<{ preview?: string | null }>({ key: `form-preview:${revision}` });
  const submit = useRef(fetcher.submit);
  submit.current = fetcher.submit;
  const timer = useRef<ReturnType<typeof setTimeout>>();
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => {
    setHydrated(true);
    return () => clearTimeout(timer.current);
  }, []);
  function onChange(event: React.FormEvent<HTMLFormElement>) {
    const form = event.currentTarget;
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      // A disabled editor (a post under way) would post no inputs, and so an empty draft.
      if ((form.elements.namedItem("title") as HTMLInputElement | null)?.disabled !== false) return;
      const body = new FormData(form);
      body.set("intent", "preview");
      submit.current(body, { method: "post" });
    }, DELAY_MS);
  }
  const live = fetcher.data?.preview;
  return { markup: live === undefined ? saved : live, onChange, live: hydrated };
}

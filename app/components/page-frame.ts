import { useMatches, useRouteError } from "@remix-run/react";
import { useEffect } from "react";
import { refusalPageOf } from "~/lib/http/error-code";
import { EN_FRAME } from "~/lib/i18n/messages/en-frame";
import type { PageLanguage } from "~/lib/i18n/messages/types";

// What the document around a page needs of its language; a form's pages hand theirs in, every other page is English.

export interface PageFrame {
  lang: string;
  dir: "ltr" | "rtl";
  skipLink: string;
  footer: string;
  embed: boolean;
  /** The allowed page that framed it, the one its height is told to. */
  parent: string | null;
}

export function usePageFrame(): PageFrame {
  const matches = useMatches();
  const error = useRouteError();
  for (const match of [...matches].reverse()) {
    const data = match.data as { i18n?: PageLanguage; embed?: boolean; embedParent?: string | null } | undefined;
    if (data?.i18n) {
      const { lang, dir, page } = data.i18n;
      return { lang, dir, skipLink: page.skipLink, footer: page.footer, embed: data.embed === true, parent: data.embedParent ?? null };
    }
  }
  const refused = refusalPageOf(error);
  const none = { embed: false, parent: null };
  if (refused) return { lang: refused.lang, dir: refused.dir, skipLink: refused.texts.skipLink, footer: refused.texts.footer, ...none };
  return { lang: "en", dir: "ltr", ...EN_FRAME, ...none };
}

/** Framed by an allowed page, tells that origin alone the document's height as it changes (/embed.js sizes the frame). */
export function useReportHeight({ embed, parent }: PageFrame): void {
  useEffect(() => {
    if (!embed || !parent || window.parent === window) return;
    // A framed body is as tall as its content (body.embed), so the frame can shrink as well as grow.
    const report = () =>
      window.parent.postMessage({ type: "gatepost:height", height: Math.ceil(document.body.getBoundingClientRect().height) }, parent);
    const observer = new ResizeObserver(report);
    observer.observe(document.body);
    report();
    return () => observer.disconnect();
  }, [embed, parent]);
}

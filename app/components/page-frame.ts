import { useMatches, useRouteError } from "@remix-run/react";
import { refusalPageOf } from "~/lib/http/error-code";
import { EN_FRAME } from "~/lib/i18n/messages/en-frame";
import type { PageLanguage } from "~/lib/i18n/messages/types";

// What the document around a page needs of its language: <html lang dir>, the skip link and the footer.
// A form's pages hand their language in their loader data (`i18n`), a form's refusal in its body; every
// other page (the console, the landing page) is English.

export interface PageFrame {
  lang: string;
  dir: "ltr" | "rtl";
  skipLink: string;
  footer: string;
  /** Framed on another site (/f/:id?embed=1): no site header or footer. */
  embed: boolean;
}

export function usePageFrame(): PageFrame {
  const matches = useMatches();
  const error = useRouteError();
  for (const match of [...matches].reverse()) {
    const data = match.data as { i18n?: PageLanguage; embed?: boolean } | undefined;
    if (data?.i18n) {
      const { lang, dir, page } = data.i18n;
      return { lang, dir, skipLink: page.skipLink, footer: page.footer, embed: data.embed === true };
    }
  }
  const refused = refusalPageOf(error);
  if (refused) return { lang: refused.lang, dir: refused.dir, skipLink: refused.texts.skipLink, footer: refused.texts.footer, embed: false };
  return { lang: "en", dir: "ltr", ...EN_FRAME, embed: false };
}

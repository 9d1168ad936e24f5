import { ERRORS, isVisitorErrorCode, type ErrorCode } from "~/lib/http/errors";
import type { HtmlRefusalWords, RefusalPage } from "~/lib/text/refusal-words";
import { fill } from "~/lib/text/fill";
import { textDirection, type Lang } from "~/lib/text/languages";
import { ar } from "~/lib/i18n/messages/ar";
import { de } from "~/lib/i18n/messages/de";
import { en } from "~/lib/i18n/messages/en";
import { es } from "~/lib/i18n/messages/es";
import { fr } from "~/lib/i18n/messages/fr";
import { it } from "~/lib/i18n/messages/it";
import { ja } from "~/lib/i18n/messages/ja";
import { nl } from "~/lib/i18n/messages/nl";
import { pl } from "~/lib/i18n/messages/pl";
import { pt } from "~/lib/i18n/messages/pt";
import type { Messages, PageLanguage } from "~/lib/i18n/messages/types";

// Every language's texts, on the server only: a page gets its one language's part from its loader
// (pageLanguage), so no catalogue reaches the browser (docs/decisions/075).

export const CATALOGUES: Readonly<Record<Lang, Messages>> = { en, de, fr, es, it, pt, nl, pl, ja, ar };

export function messagesOf(lang: Lang): Messages {
  return CATALOGUES[lang];
}

/** A refusal's message for a visitor in `lang`; codes that speak to the operator stay English. */
export function errorText(code: ErrorCode, lang: Lang): string {
  return isVisitorErrorCode(code) ? CATALOGUES[lang].errors[code] : ERRORS[code].message;
}

/** What a form page's loader hands its page: one language's texts, never the catalogues. */
export function pageLanguage(lang: Lang): PageLanguage {
  return { lang, dir: textDirection(lang), page: CATALOGUES[lang].page };
}

/** A refused page in `lang`: its message and the error page's own words (refusal() in responses.server.ts). */
export function refusalPage(code: ErrorCode, lang: Lang): RefusalPage {
  const { pageNotFound, refused, wrong, errorCode, home } = CATALOGUES[lang].refusal;
  const { skipLink, footer } = CATALOGUES[lang].page;
  const texts = { pageNotFound, refused, wrong, errorCode, home, skipLink, footer };
  return { message: errorText(code, lang), lang, dir: textDirection(lang), texts };
}

/** The words of the page another site's plain HTML post gets when refused (problemHtml), in `lang`. */
export function htmlRefusalWords(code: ErrorCode, lang: Lang, formTitle: string | null): HtmlRefusalWords {
  const { notSent, titled, nothingKept, errorCode } = CATALOGUES[lang].refusal;
  const title = formTitle === null ? notSent : fill(titled, { title: formTitle });
  return { lang, dir: textDirection(lang), message: errorText(code, lang), title, nothingKept, errorCode };
}

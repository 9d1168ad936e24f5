// The English words around a refusal: the error page every route shows and the page another site's
// plain HTML post gets. They are the English catalogue's (app/lib/i18n/messages/en.ts), kept here so
// every page's error boundary and the last-resort answers have them without any catalogue. Client-safe.

export const EN_REFUSAL = {
  notSent: "Not sent",
  titled: "{title}: not sent",
  nothingKept: "Nothing was kept. Go back with your browser's Back button, correct what is listed and send the form again.",
  errorCode: "Error code:",
  pageNotFound: "Page not found",
  refused: "We could not accept that",
  wrong: "Something went wrong",
  home: "Go to the Gatepost home page",
};

/**
 * What a refusal page says in the visitor's language (app/lib/i18n/catalogue.server.ts refusalPage):
 * the message, the page's language and direction, and the boundary's own words.
 */
export interface RefusalPage {
  message: string;
  lang: string;
  dir: "ltr" | "rtl";
  texts: { pageNotFound: string; refused: string; wrong: string; errorCode: string; home: string; skipLink: string; footer: string };
}

/** The refusal page's words in the visitor's language (app/lib/i18n/catalogue.server.ts htmlRefusalWords). */
export interface HtmlRefusalWords {
  lang: string;
  dir: "ltr" | "rtl";
  message: string;
  /** The heading, the form's title already in it. */
  title: string;
  nothingKept: string;
  errorCode: string;
}

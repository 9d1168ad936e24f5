// The English words around a refusal, kept here so every error boundary and last-resort answer has them
// without any catalogue. Client-safe.

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

/** What a refusal page says in the visitor's language: the message, language, direction and the boundary's words. */
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
  title: string;
  nothingKept: string;
  errorCode: string;
}

import type { VisitorErrorCode } from "~/lib/http/errors";
import type { Lang } from "~/lib/text/languages";
import type { Message, PluralText } from "~/lib/text/fill";

// One language's texts: everything Gatepost writes around an owner's form. A page gets only its language's
// `page` part from its loader. {name} marks a placeholder (app/lib/text/fill.ts).

export interface PageTexts {
  optional: string;
  choose: string;
  honeypot: string;
  send: string;
  sending: string;
  sendingHint: string;
  /** What Send waits for, by the captcha's state. */
  submitHint: Record<"loading" | "ready" | "expired" | "error" | "blocked", string>;
  captcha: Record<"loading" | "ready" | "expired" | "error" | "blocked" | "retry" | "noscript", string>;
  summaryProblem: string;
  summaryNotSent: string;
  skipLink: string;
  footer: string;
  /** A file field's limits, and what the page finds wrong with chosen files before sending. */
  fileLimitsOne: string;
  fileLimitsMany: PluralText;
  fileTooMany: PluralText;
  fileEmpty: string;
  fileTooLarge: string;
  fileWrongType: string;
  /** A form in steps (docs/forms.md#steps): where the person is, and the buttons between steps. */
  stepProgress: string;
  stepBack: string;
  stepNext: string;
}

export interface ValidationTexts {
  single: string;
  required: string;
  ticked: string;
  tooLong: PluralText;
  tooShort: PluralText;
  format: string;
  email: string;
  url: string;
  option: string;
  number: string;
  min: string;
  max: string;
  asFile: string;
  chooseFile: string;
  uploadTotal: string;
}

export interface ThanksTexts {
  title: string;
  description: string;
  next: string;
  stepStored: string;
  stepHandedOver: string;
  stepDone: string;
  reference: string;
  keepReference: string;
  another: string;
  allForms: string;
}

export interface HomeTexts {
  title: string;
  description: string;
  lead: string;
  noForms: string;
  noFormsHint: string;
}

export interface RefusalTexts {
  notSent: string;
  titled: string;
  nothingKept: string;
  errorCode: string;
  pageNotFound: string;
  refused: string;
  wrong: string;
  home: string;
}

export interface Messages {
  /** The language's own name, in that language: the console's list and the embed's picker show it. */
  name: string;
  page: PageTexts;
  validation: ValidationTexts;
  thanks: ThanksTexts;
  home: HomeTexts;
  refusal: RefusalTexts;
  /** The frame of the confirmation e-mail around the owner's text. */
  email: { reference: Message };
  errors: Record<VisitorErrorCode, string>;
}

/** What a form page's loader hands its page: the language, its direction and its fixed texts. */
export interface PageLanguage {
  lang: Lang;
  dir: "ltr" | "rtl";
  page: PageTexts;
}

export type FieldTexts = Pick<PageLanguage, "lang" | "page">;

import { ERRORS, VISITOR_ERROR_CODES, type VisitorErrorCode } from "~/lib/http/errors";
import type { Messages } from "~/lib/i18n/messages/types";
import { EN_FRAME } from "~/lib/i18n/messages/en-frame";
import { EN_REFUSAL } from "~/lib/text/refusal-words";

// English: the catalogue every other language is checked against (tests/unit/i18n-catalogues.test.ts).
// Its error messages are the catalogue's own (app/lib/http/errors.ts), so they are written once.

export const en: Messages = {
  name: "English",
  page: {
    optional: " (optional)",
    choose: "Choose…",
    honeypot: "Leave this field empty",
    send: "Send",
    sending: "Sending…",
    sendingHint: "Sending your form…",
    submitHint: {
      loading: "The form can be sent once the captcha check is complete.",
      ready: "Ready to send.",
      expired: "Send is available again once the check has refreshed.",
      error: "Send is available once the captcha check above succeeds.",
      blocked: "Send is available once the captcha above can load.",
    },
    captcha: {
      loading: "Checking that you are human…",
      ready: "Check complete — you can send the form.",
      expired: "The check expired and is refreshing itself…",
      error: "The captcha check ran into a problem.",
      blocked:
        "The captcha could not load, perhaps because a content blocker stopped it or there is no connection. Allow challenges.cloudflare.com or check your connection, then retry.",
      retry: "Retry the captcha",
      noscript: "The captcha needs JavaScript. Turn JavaScript on for this site, then reload the page to send the form.",
    },
    summaryProblem: "There is a problem",
    summaryNotSent: "Not sent yet",
    ...EN_FRAME,
    fileLimitsOne: "A {types} file of up to {size}.",
    fileLimitsMany: {
      one: "Up to {count} file, each a {types} file of up to {size}.",
      other: "Up to {count} files, each a {types} file of up to {size}.",
    },
    fileTooMany: { one: "{label} takes at most {count} file.", other: "{label} takes at most {count} files." },
    fileEmpty: "{name} is empty: choose the file again.",
    fileTooLarge: "{name} is larger than {size}.",
    fileWrongType: "{label} must be a {types} file, and {name} is not one.",
    stepProgress: "Step {step} of {count}",
    stepBack: "Back",
    stepNext: "Next",
  },
  validation: {
    single: "{label} must be a single value.",
    required: "{label} is required.",
    ticked: "{label} must be ticked to continue.",
    tooLong: { one: "{label} must be at most {count} character.", other: "{label} must be at most {count} characters." },
    tooShort: { one: "{label} must be at least {count} character.", other: "{label} must be at least {count} characters." },
    format: "{label} is not in the expected format.",
    email: "{label} must be a valid e-mail address, like name@example.com.",
    url: "{label} must be a web address starting with https://.",
    option: "Choose one of the listed options for {label}.",
    number: "{label} must be a number.",
    min: "{label} must be at least {min}.",
    max: "{label} must be at most {max}.",
    asFile: "{label} must be sent as a file, in a multipart/form-data post.",
    chooseFile: "Choose a file for {label}.",
    uploadTotal: "The files together must be at most {size}.",
  },
  thanks: {
    title: "Received",
    description: "What you sent through “{title}” was received.",
    next: "What happens next",
    stepStored: "What you sent through “{title}” passed the human check and is stored safely.",
    stepHandedOver:
      "It is being handed to the people who look after this form now; if their system is busy, Gatepost keeps trying for you.",
    stepDone: "There is nothing more to do: no need to send it again.",
    reference: "Your reference",
    keepReference: "Keep the reference if you need to ask about what you sent.",
    another: "Send another",
    allForms: "All forms",
  },
  home: {
    title: "Forms you can trust",
    description:
      "Gatepost shows forms, checks each sender is human with Cloudflare Turnstile, and only then keeps and forwards what they sent.",
    lead: "Each form checks that you are human with Cloudflare Turnstile before anything you send is kept or passed on.",
    noForms: "No public forms yet",
    noFormsHint: "Forms marked public, in app/forms/ or in the console, are listed here.",
  },
  refusal: EN_REFUSAL,
  email: { reference: "Reference: {id}" },
  errors: Object.fromEntries(VISITOR_ERROR_CODES.map((code) => [code, ERRORS[code].message])) as Record<VisitorErrorCode, string>,
};

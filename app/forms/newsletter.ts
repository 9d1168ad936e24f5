import { defineForm } from "~/forms/schema";
import { LANGUAGES } from "~/lib/text/languages";
import { NEWSLETTER_TRANSLATIONS } from "~/forms/translations/newsletter";

export const newsletterForm = defineForm({
  id: "newsletter",
  languages: LANGUAGES,
  translations: NEWSLETTER_TRANSLATIONS,
  title: "Newsletter",
  description: "Get one e-mail a month about what is new. Unsubscribe with one click.",
  public: true,
  fields: [
    {
      name: "email",
      type: "email",
      label: "E-mail address",
      hint: "We send one e-mail a month, nothing else.",
      required: true,
      maxLength: 254,
      autocomplete: "email",
      // A link in an e-mail or an ad can start it filled (?email=); the visitor can still change it.
      prefill: true,
    },
    {
      name: "consent",
      type: "checkbox",
      label: "I agree to receive the monthly newsletter",
      hint: "You can withdraw this at any time with the link in every e-mail.",
      required: true,
    },
    // Which campaign brought the visitor, from the link's ?utm_source= (empty when there was none).
    { name: "source", type: "hidden", label: "Campaign source", required: false, maxLength: 100, prefill: "utm_source" },
  ],
  destinations: [{ kind: "webhook" }],
  allowedOrigins: [],
  successMessage: "Thank you — you are on the list. The next newsletter will reach you at the start of the month.",
  retentionDays: 365,
});

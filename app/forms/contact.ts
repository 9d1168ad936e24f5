import { defineForm } from "~/forms/schema";
import { LANGUAGES } from "~/lib/text/languages";
import { CONTACT_TRANSLATIONS } from "~/forms/translations/contact";

export const contactForm = defineForm({
  id: "contact",
  languages: LANGUAGES,
  translations: CONTACT_TRANSLATIONS,
  title: "Contact us",
  description: "Send us a message and we will get back to you by e-mail.",
  public: true,
  fields: [
    {
      name: "name",
      type: "text",
      label: "Your name",
      hint: "How you would like us to address you.",
      required: true,
      maxLength: 100,
      autocomplete: "name",
    },
    {
      name: "email",
      type: "email",
      label: "E-mail address",
      hint: "We only use it to reply to you.",
      required: true,
      maxLength: 254,
      autocomplete: "email",
    },
    {
      name: "message",
      type: "textarea",
      label: "Message",
      hint: "Between 10 and 5,000 characters.",
      required: true,
      minLength: 10,
      maxLength: 5000,
    },
  ],
  // Each kind is off while its setting is empty: CONTACT_WEBHOOK_URL, CONTACT_EMAIL_TO,
  // CONTACT_SLACK_WEBHOOK_URL, CONTACT_DISCORD_WEBHOOK_URL, and CONTACT_CONFIRMATION=on.
  destinations: [
    { kind: "webhook" },
    { kind: "email" },
    { kind: "slack" },
    { kind: "discord" },
    // Off until their settings are set (docs/destinations.md): a bot token and chat, or a webhook URL.
    { kind: "telegram" },
    { kind: "googlechat" },
    { kind: "teams" },
    {
      kind: "confirmation",
      subject: "We received your message",
      text: "Thank you for writing to us. Your message has reached us and we will reply by e-mail.\n\nIf you did not write to us, you can ignore this e-mail: nothing else will be sent to you.",
    },
    // Off until CONTACT_SHEETS_SPREADSHEET_ID is set (docs/destinations.md#google-sheets-sheets).
    { kind: "sheets" },
    // Off until CONTACT_AIRTABLE_BASE_ID is set (docs/destinations.md#airtable-airtable).
    { kind: "airtable" },
  ],
  allowedOrigins: [],
  successMessage: "Thank you — your message has reached us. We will reply by e-mail.",
  retentionDays: 90,
});

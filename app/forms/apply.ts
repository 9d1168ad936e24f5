import { defineForm } from "~/forms/schema";
import { LANGUAGES } from "~/lib/text/languages";
import { APPLY_TRANSLATIONS } from "~/forms/translations/apply";

// A job application with a CV: the example of a form that takes a file (docs/forms.md#file-fields), asks
// a portfolio of designers only and comes in two steps (docs/forms.md#conditions, #steps).
export const applyForm = defineForm({
  id: "apply",
  languages: LANGUAGES,
  translations: APPLY_TRANSLATIONS,
  title: "Apply for a job",
  description: "Send us your CV and we will get back to you by e-mail.",
  public: true,
  fields: [
    {
      name: "name",
      type: "text",
      label: "Your name",
      hint: "As it appears on your CV.",
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
      name: "role",
      type: "select",
      label: "The role",
      hint: "Pick the closest one.",
      options: [
        { value: "designer", label: "Design" },
        { value: "developer", label: "Development" },
        { value: "other", label: "Something else" },
      ],
    },
    // Asked only of designers: the server neither requires nor keeps it for anyone else (docs/forms.md#conditions).
    {
      name: "portfolio",
      type: "url",
      label: "Link to your portfolio",
      hint: "A page with your design work.",
      required: true,
      when: { field: "role", equals: "designer" },
    },
    {
      name: "cv",
      type: "file",
      label: "Your CV",
      hint: "Your curriculum vitae, as you would send it to any employer.",
      required: true,
      accept: ["application/pdf"],
      maxFiles: 1,
      maxBytes: 10 * 1024 * 1024,
    },
  ],
  steps: [
    { title: "About you", fields: ["name", "email", "role", "portfolio"] },
    { title: "Your CV", fields: ["cv"] },
  ],
  // Each kind is off while its setting is empty: APPLY_WEBHOOK_URL, APPLY_EMAIL_TO,
  // APPLY_SLACK_WEBHOOK_URL, APPLY_DISCORD_WEBHOOK_URL, and APPLY_CONFIRMATION=on. Notifications carry
  // links to the CV, never the file itself; the confirmation to the sender names no file at all.
  destinations: [
    { kind: "webhook" },
    { kind: "email" },
    { kind: "slack" },
    { kind: "discord" },
    {
      kind: "confirmation",
      subject: "We received your application",
      text: "Thank you for applying. Your application and CV have reached us and we will reply by e-mail.\n\nIf you did not apply, you can ignore this e-mail: nothing else will be sent to you.",
    },
  ],
  allowedOrigins: [],
  successMessage: "Thank you — your application has reached us. We will reply by e-mail.",
  retentionDays: 180,
  maxUploadBytes: 10 * 1024 * 1024,
});

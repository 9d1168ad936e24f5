// The HTTP e-mail providers Gatepost can send through instead of send_email (ADR 092): the e-mail
// kinds' settings name one, and sending/email-provider.server.ts speaks each one's API.

export const EMAIL_PROVIDERS = ["resend", "postmark"] as const;
export type EmailProvider = (typeof EMAIL_PROVIDERS)[number];

// The owner's e-mails reach the local sink as every e-mail does (send_email's files or an HTTP provider's
// stand-in, dev/local-sink.mjs): nothing of their own to stand in for; named on the sink's page.

export const sink = {
  kind: "email",
  shows: "owner e-mails",
  /** `npm start`: the settings (by suffix) pointing a form here while `switch`, its on-switch, is unset. */
  local: { switch: "EMAIL_TO", settings: () => ({ EMAIL_TO: "owner@localhost" }) },
};

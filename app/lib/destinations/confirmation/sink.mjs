// Confirmations reach the local sink as every e-mail does (send_email's files or an HTTP provider's
// stand-in, dev/local-sink.mjs): nothing of their own to stand in for; named on the sink's page.

export const sink = {
  kind: "confirmation",
  shows: "confirmations to the sender",
  /** `npm start`: the settings (by suffix) pointing a form here while `switch`, its on-switch, is unset. */
  local: { switch: "CONFIRMATION", settings: () => ({ CONFIRMATION: "on" }) },
};

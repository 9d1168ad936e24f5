// How the local sink shows a verified webhook delivery: the event and form, the submission's fields
// (files with their links) and its reference. The sink itself verifies and deduplicates (dev/local-sink.mjs).

/** One field's value as a person reads it: a file field as each file's name, size and download link. */
function fieldText(name, value, files) {
  if (value === null || value === undefined) return "—";
  if (!Array.isArray(value)) return typeof value === "object" ? JSON.stringify(value) : String(value);
  if (value.length === 0) return "—";
  return value
    .map((file) => {
      const linked = files.find((f) => f.field === name && f.id === file?.id);
      const about = `${file?.name ?? "(file)"} (${file?.type ?? "?"}, ${file?.size ?? "?"} bytes)`;
      return linked?.url ? `${about} ${linked.url}` : about;
    })
    .join("\n  ");
}

export const sink = {
  kind: "webhook",
  /** `npm start`: the settings (by suffix) pointing a form here while `switch`, its on-switch, is unset. */
  local: {
    switch: "WEBHOOK_URL",
    // A secret set for a form is the one the sink verifies with.
    sharedSecret: "WEBHOOK_SECRET",
    settings: ({ origin, secret }) => ({ WEBHOOK_URL: `${origin}/webhook`, WEBHOOK_SECRET: secret }),
  },
  shows: "webhooks",
  /** A verified webhook delivery as a person reads it: the event and form, the fields, the reference. */
  describe({ id, payload, firstAt, duplicates = 0, headers = [] }) {
    const files = payload?.submission?.files ?? [];
    const fields = Object.entries(payload?.submission?.fields ?? {}).map(([name, value]) => `${name}: ${fieldText(name, value, files)}`);
    const reference = typeof payload?.submission?.id === "string" ? payload.submission.id : null;
    const text = [...fields, ...(reference ? ["", `Reference: ${reference}`] : [])].join("\n");
    return {
      kind: "webhook",
      at: firstAt,
      title: payload ? `${payload.type} (form ${payload.form})` : "(not JSON)",
      headers: [
        ["webhook-id", id],
        ...headers.filter(([name]) => name !== "webhook-id"),
        ["Signature", "verified with the standardwebhooks library"],
        ...(duplicates > 0 ? [["Duplicates", `${duplicates} (answered 200, not processed again)`]] : []),
      ],
      text: text || JSON.stringify(payload),
      reference,
    };
  },
};

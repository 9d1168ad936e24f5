const LABELS: Record<string, string> = {
  delivered: "Delivered",
  pending: "Pending",
  dead: "Dead",
  quarantined: "Quarantined",
  stored: "Stored (no destination)",
  // A delivery settled without sending (a confirmation skipped or refused by the e-mail service).
  "not-sent": "Not sent",
};

/** A submission or delivery state as a word plus a colour; the word alone carries the meaning. */
export function StateBadge({ state }: { state: string }) {
  return <span className={`badge badge-${state}`}>{LABELS[state] ?? state}</span>;
}

// The states a submission can be in, derived from its row and its deliveries (STATE_SQL in
// console-queries.server.ts), in the order the console shows them. Client-safe.
export const SUBMISSION_STATES = ["delivered", "pending", "dead", "quarantined", "stored"] as const;
export type SubmissionState = (typeof SUBMISSION_STATES)[number];

/** The states the console's list filters by: "stored" (no destination at all) is not offered. */
export const FILTER_STATES = ["delivered", "pending", "dead", "quarantined"] as const satisfies readonly SubmissionState[];

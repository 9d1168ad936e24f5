// The states a submission can be in, in the console's order, kept in submissions.state (ADR 060). Client-safe.
export const SUBMISSION_STATES = ["delivered", "pending", "dead", "quarantined", "stored"] as const;
export type SubmissionState = (typeof SUBMISSION_STATES)[number];

/** The states the console's list filters by: "stored" (no destination at all) is not offered. */
export const FILTER_STATES = ["delivered", "pending", "dead", "quarantined"] as const satisfies readonly SubmissionState[];
export type FilterState = (typeof FILTER_STATES)[number];

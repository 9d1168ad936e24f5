// The states a submission can be in, in the order the console shows them. Client-safe. Stored in
// submissions.state (migration 0021, docs/decisions/060) and kept by its triggers; NULL there means a
// row the backfill has not moved yet, whose state is derived as it was before (STATE_OF).
export const SUBMISSION_STATES = ["delivered", "pending", "dead", "quarantined", "stored"] as const;
export type SubmissionState = (typeof SUBMISSION_STATES)[number];

/** The states the console's list filters by: "stored" (no destination at all) is not offered. */
export const FILTER_STATES = ["delivered", "pending", "dead", "quarantined"] as const satisfies readonly SubmissionState[];
export type FilterState = (typeof FILTER_STATES)[number];

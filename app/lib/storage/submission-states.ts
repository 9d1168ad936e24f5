// The states a submission can be in, as the console shows and filters them (client-safe).
export const STATES = ["delivered", "pending", "dead", "quarantined"] as const;
export type SubmissionState = (typeof STATES)[number] | "stored";

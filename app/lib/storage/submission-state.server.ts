import sql, { raw, type Sql } from "sql-template-tag";
import type { SubmissionState } from "~/lib/storage/submission-states";

// A submission's state from its own deliveries: quarantined, dead, pending, delivered, or "stored" with none. The
// triggers of migration 0021 hold the same expression; this derives rows not yet moved (ADR 060).

/** The derived state of the submissions row named `alias`, as SQL. */
export function stateOf(alias: "s" | "submissions"): Sql {
  const row = raw(alias);
  return sql`CASE WHEN ${row}.status = 'quarantined' THEN 'quarantined' ELSE (
    SELECT CASE WHEN count(*) = 0 THEN 'stored' WHEN max(d.status = 'dead') THEN 'dead'
      WHEN max(d.status = 'pending') THEN 'pending' ELSE 'delivered' END
    FROM deliveries d WHERE d.submission_id = ${row}.id) END`;
}

/** The state a new submission is stored in: its outbox rows, inserted just after it, are all pending. */
export function plannedState({ quarantined, deliveries }: { quarantined: boolean; deliveries: number }): SubmissionState {
  if (quarantined) return "quarantined";
  return deliveries > 0 ? "pending" : "stored";
}

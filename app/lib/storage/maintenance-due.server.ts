import sql from "sql-template-tag";
import { z } from "zod";
import { INDEXED_UP_TO } from "~/lib/storage/search-index.server";
import { parseRows, statement } from "~/lib/storage/sql.server";

// What the cron has to do this minute, in one read (docs/decisions/095): whether any delivery or a
// paused destination's probe is due, whether an export job is open or expired, whether rows from before
// migration 0021 wait to move, whether new rows wait for the search index (docs/decisions/101), which
// jobs on a cadence are not yet due (their next run is kept in maintenance_cursors under
// "next-run:<job>"), and the cursors of the jobs that run, which would otherwise each read their own.
// Every part is an indexed lookup that stops at one row (a cursor: one row per name asked for).

const NEXT_RUN = "next-run:";

export interface MaintenanceDue {
  /** A pending delivery is due, or a paused destination's probe. */
  deliveries: boolean;
  /** An export job is unfinished, or older than the exports' lifetime. */
  exports: boolean;
  /** Submissions stored before migration 0021 are still to be moved. */
  unmoved: boolean;
  /** Submissions above the search index's cursor wait to be indexed. */
  unindexed: boolean;
  /** Jobs on a cadence whose next run is still ahead. */
  waiting: ReadonlySet<string>;
  /** The kept cursors asked for (maintenance_cursors), read here so their jobs need no read of their own; absent: none kept. */
  cursors: ReadonlyMap<string, string>;
}

const DueRowSchema = z.object({
  deliveries: z.number(),
  exports: z.number(),
  unmoved: z.number(),
  unindexed: z.number(),
  waiting: z.string().transform((text) => z.array(z.string()).parse(JSON.parse(text))),
  cursors: z.string().transform((text) => z.record(z.string(), z.string()).parse(JSON.parse(text))),
});

/** One D1 read; D1 errors throw. */
export async function readMaintenanceDue(
  db: D1Database,
  { nowMs, exportsExpireBeforeMs, cursors = [] }: { nowMs: number; exportsExpireBeforeMs: number; cursors?: readonly string[] },
) {
  const { results } = await statement(
    db,
    sql`SELECT
      (EXISTS (SELECT 1 FROM deliveries INDEXED BY deliveries_due WHERE status = 'pending' AND next_attempt_at <= ${nowMs})
        OR EXISTS (SELECT 1 FROM destination_health WHERE paused_at IS NOT NULL AND probe_at <= ${nowMs})) AS deliveries,
      (EXISTS (SELECT 1 FROM export_jobs INDEXED BY export_jobs_unfinished WHERE finished_at IS NULL)
        OR EXISTS (SELECT 1 FROM export_jobs INDEXED BY export_jobs_created WHERE created_at < ${exportsExpireBeforeMs})) AS exports,
      EXISTS (SELECT 1 FROM submissions INDEXED BY submissions_state_received WHERE state IS NULL) AS unmoved,
      EXISTS (SELECT 1 FROM submissions WHERE rowid > ${INDEXED_UP_TO}) AS unindexed,
      (SELECT json_group_array(substr(name, ${NEXT_RUN.length + 1})) FROM maintenance_cursors
        WHERE name >= ${NEXT_RUN} AND name < ${`${NEXT_RUN}\uffff`} AND CAST(value AS INTEGER) > ${nowMs}) AS waiting,
      (SELECT json_group_object(name, value) FROM maintenance_cursors
        WHERE name IN (SELECT value FROM json_each(${JSON.stringify(cursors)}))) AS cursors`,
  ).all();
  const [row] = parseRows(DueRowSchema, results);
  return {
    deliveries: row.deliveries === 1,
    exports: row.exports === 1,
    unmoved: row.unmoved === 1,
    unindexed: row.unindexed === 1,
    waiting: new Set(row.waiting),
    cursors: new Map(Object.entries(row.cursors)),
  } satisfies MaintenanceDue;
}

/** Records when each job on a cadence next runs; one D1 call for them all. D1 errors throw. */
export async function scheduleNextRuns(db: D1Database, runs: readonly { job: string; atMs: number }[]): Promise<void> {
  if (runs.length === 0) return;
  await db.batch(
    runs.map(({ job, atMs }) =>
      statement(
        db,
        sql`INSERT INTO maintenance_cursors (name, value) VALUES (${NEXT_RUN + job}, ${String(atMs)})
          ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
      ),
    ),
  );
}

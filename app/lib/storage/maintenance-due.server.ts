import sql from "sql-template-tag";
import { z } from "zod";
import { INDEXED_UP_TO } from "~/lib/storage/search-index.server";
import { parseRows, statement } from "~/lib/storage/sql.server";

// What the cron has to do this minute, in one read of indexed lookups that each stop at one row (ADR 095): due
// deliveries and probes, exports, unmoved and unindexed rows, cadence jobs not yet due, and the jobs' cursors.

const NEXT_RUN = "next-run:";

export interface MaintenanceDue {
  deliveries: boolean;
  exports: boolean;
  unmoved: boolean;
  unindexed: boolean;
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

/** What the cron has to do, in one D1 read; D1 errors throw. */
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
